import { LABEL_KEY_PATTERN, LABEL_VALUE_PATTERN, type Labels, NAME_LABEL } from './labels.js';

/**
 * Label selectors in Kubernetes' syntax (DESIGN section 14), parsed once into a matcher:
 * `env=prod` (or `==`), `env!=prod`, `site in (fra,ams)`, `site notin (x)`, `gpu` (has the key),
 * `!retired` (has not), joined by commas (all must hold). `name` matches every machine's name.
 * The empty selector matches everything.
 */
export interface Selector {
  /** The selector as given (trimmed). */
  readonly text: string;
  /** Whether a machine called `name` with `labels` is selected. */
  matches(labels: Labels, name: string): boolean;
  /** The empty selector: everything. */
  readonly everything: boolean;
  /**
   * Whether this selector asks at least what `other` asks (each of its requirements, written
   * alike), so it selects no machine `other` does not: a narrower or equal selector.
   */
  narrows(other: Selector): boolean;
}

/** A requirement written one way (values sorted), to compare two selectors' requirements. */
const TERMS = new WeakMap<Selector, ReadonlySet<string>>();

function termOf(r: Requirement): string {
  if (r.op === 'in' || r.op === 'notin')
    return `${r.key} ${r.op} (${[...r.values].sort().join(',')})`;
  if (r.op === 'eq' || r.op === 'ne') return `${r.key} ${r.op} ${r.value}`;
  return `${r.op} ${r.key}`;
}

/** A selector that does not parse: what is wrong and where (0-based, in characters). */
export class SelectorError extends Error {
  constructor(
    readonly position: number,
    readonly problem: string,
  ) {
    super(`selector: ${problem} at position ${position}`);
    this.name = 'SelectorError';
  }
}

/** The longest selector taken: a query string's worth. */
export const SELECTOR_MAX = 4096;

type Requirement =
  | { op: 'exists' | 'absent'; key: string }
  | { op: 'in' | 'notin'; key: string; values: ReadonlySet<string> }
  | { op: 'eq' | 'ne'; key: string; value: string };

const KEY = new RegExp(LABEL_KEY_PATTERN);
const VALUE = new RegExp(LABEL_VALUE_PATTERN);
const WORD = /[A-Za-z0-9._/-]*/y;

/** Parses `text`; throws SelectorError naming the position of the first thing wrong. */
export function parseSelector(text: string): Selector {
  if (text.length > SELECTOR_MAX)
    throw new SelectorError(SELECTOR_MAX, `longer than ${SELECTOR_MAX} characters`);
  const requirements = new Parser(text).requirements();
  const trimmed = text.trim();
  const terms = new Set(requirements.map(termOf));
  const selector: Selector = {
    text: trimmed,
    everything: requirements.length === 0,
    matches: (labels, name) => requirements.every((r) => holds(r, labels, name)),
    narrows: (other) => {
      const asked = TERMS.get(other);
      return asked !== undefined && [...asked].every((t) => terms.has(t));
    },
  };
  TERMS.set(selector, terms);
  return selector;
}

function holds(r: Requirement, labels: Labels, name: string): boolean {
  const value =
    r.key === NAME_LABEL ? name : Object.hasOwn(labels, r.key) ? labels[r.key] : undefined;
  switch (r.op) {
    case 'exists':
      return value !== undefined;
    case 'absent':
      return value === undefined;
    case 'eq':
      return value === r.value;
    case 'ne':
      return value !== r.value;
    case 'in':
      return value !== undefined && r.values.has(value);
    case 'notin':
      return value === undefined || !r.values.has(value);
  }
}

class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  requirements(): Requirement[] {
    const out: Requirement[] = [];
    this.space();
    if (this.at === this.text.length) return out;
    for (;;) {
      out.push(this.requirement());
      this.space();
      if (this.at === this.text.length) return out;
      this.expect(',', 'expected "," between requirements');
      this.space();
    }
  }

  private requirement(): Requirement {
    if (this.peek() === '!') {
      this.at += 1;
      this.space();
      return { op: 'absent', key: this.key() };
    }
    const key = this.key();
    this.space();
    const c = this.peek();
    if (c === '' || c === ',') return { op: 'exists', key };
    if (c === '=' || c === '!') {
      const op = this.text.startsWith('!=', this.at) ? 'ne' : 'eq';
      if (c === '!' && op !== 'ne') throw this.error('expected "!="');
      this.at += this.text.startsWith('==', this.at) || op === 'ne' ? 2 : 1;
      this.space();
      return { op, key, value: this.value() };
    }
    const word = this.word();
    if (word === 'in' || word === 'notin') {
      this.space();
      return { op: word, key, values: this.values() };
    }
    this.at -= word.length;
    throw this.error('expected "=", "!=", "in", "notin", "," or the end');
  }

  private values(): ReadonlySet<string> {
    this.expect('(', 'expected "(" to open the list of values');
    const values = new Set<string>();
    for (;;) {
      this.space();
      values.add(this.value());
      this.space();
      if (this.peek() === ')') {
        this.at += 1;
        return values;
      }
      this.expect(',', 'expected "," or ")" in the list of values');
    }
  }

  private key(): string {
    const start = this.at;
    const key = this.word();
    if (key === '') throw this.error('expected a label key', start);
    if (!KEY.test(key)) throw this.error(`"${key}" is not a label key`, start);
    return key;
  }

  private value(): string {
    const start = this.at;
    const value = this.word();
    if (!VALUE.test(value)) throw this.error(`"${value}" is not a label value`, start);
    return value;
  }

  private word(): string {
    WORD.lastIndex = this.at;
    const found = WORD.exec(this.text)?.[0] ?? '';
    this.at += found.length;
    return found;
  }

  private space(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.at += 1;
  }

  private peek(): string {
    return this.text.charAt(this.at);
  }

  private expect(char: string, problem: string): void {
    if (this.peek() !== char) throw this.error(problem);
    this.at += 1;
  }

  private error(problem: string, at = this.at): SelectorError {
    return new SelectorError(at, problem);
  }
}

/** The selector that selects everything. */
export const EVERYTHING: Selector = parseSelector('');
