import { evaluate } from './condition-eval.js';
import {
  type Operand,
  type Operator,
  type ParsedCondition,
  type PathStep,
  PLACEHOLDERS,
  type Placeholder,
  type PlaceholderOperand,
} from './condition-types.js';
import { durationMs, numberOf } from './condition-values.js';
import type { Observation } from './observation.js';

/**
 * Gatus's condition language: `[STATUS] == 200`, `[RESPONSE_TIME] < 500`, `[BODY].status == UP`,
 * `[BODY] == pat(*ok*)`, `len([BODY].items) > 0`, `has([BODY].errors) == false`,
 * `[STATUS] == any(200, 204)`, `[CERTIFICATE_EXPIRATION] > 336h`, `[DNS_RCODE] == NOERROR`.
 * Parsed once (at config load on the board, when handed on an agent); evaluated the same everywhere.
 */
export interface Condition {
  /** The text as written. */
  readonly text: string;
  /** The placeholders it reads (`CONNECTED`, `STATUS`, …), so a runner knows what it depends on. */
  readonly placeholders: readonly Placeholder[];
  /** Null when it holds; else what failed, as Gatus shows it: `[STATUS] (503) == 200`. */
  check(observation: Observation): string | null;
}

/** A condition that does not parse; `position` is the 0-based character where it went wrong. */
export class ConditionError extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
    this.name = 'ConditionError';
  }
}

/** Gatus placeholders a runner here cannot fill: named as unsupported rather than unknown. */
const UNSUPPORTED = new Set(['DOMAIN_EXPIRATION', 'CONTEXT']);

const OPERATORS: readonly Operator[] = ['==', '!=', '<=', '>=', '<', '>'];

class Parser {
  pos = 0;
  constructor(readonly text: string) {}

  fail(position: number, message: string): never {
    throw new ConditionError(position, message);
  }

  spaces(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] ?? '')) this.pos++;
  }

  operand(side: 'left' | 'right'): Operand {
    this.spaces();
    const at = this.pos;
    if (at >= this.text.length) this.fail(at, `missing the ${side} side of the condition`);
    const rest = this.text.slice(at);
    if (rest.startsWith('[')) return this.placeholder();
    if (rest.startsWith(']')) this.fail(at, "unbalanced bracket: ']' without '['");
    const fn = /^(len|has|pat|any)\(/i.exec(rest);
    if (fn !== null) return this.func((fn[1] ?? '').toLowerCase() as 'len', at);
    // A right-hand literal is the rest of the text (it may hold spaces, as in Gatus).
    const end =
      side === 'right' ? this.text.length : at + (/^[^\s=!<>]*/.exec(rest)?.[0].length ?? 0);
    const literal = this.text.slice(at, end).trim();
    if (literal === '') this.fail(at, `missing the ${side} side of the condition`);
    let depth = 0;
    for (let i = at; i < end; i++) {
      if (this.text[i] === '(') depth++;
      else if (this.text[i] === ')' && --depth < 0)
        this.fail(i, "unbalanced parenthesis: ')' without '('");
    }
    this.pos = end;
    return { kind: 'literal', text: literal, at };
  }

  placeholder(): PlaceholderOperand {
    const at = this.pos;
    const close = this.text.indexOf(']', at);
    if (close < 0) this.fail(at, "unbalanced bracket: '[' without ']'");
    const raw = this.text.slice(at + 1, close);
    const name = raw.toUpperCase();
    if (UNSUPPORTED.has(name)) this.fail(at, `unsupported placeholder [${raw}]`);
    if (!(PLACEHOLDERS as readonly string[]).includes(name))
      this.fail(at, `unknown placeholder [${raw}]`);
    this.pos = close + 1;
    const path: PathStep[] = [];
    for (;;) {
      const c = this.text[this.pos];
      if (c !== '.' && c !== '[') break;
      if (name !== 'BODY') this.fail(this.pos, `only [BODY] takes a path, not [${raw}]`);
      if (c === '.') {
        const key = /^[^\s.[\]()]*/.exec(this.text.slice(this.pos + 1))?.[0] ?? '';
        if (key === '') this.fail(this.pos + 1, 'empty key in the [BODY] path');
        path.push(key);
        this.pos += 1 + key.length;
      } else {
        const end = this.text.indexOf(']', this.pos);
        if (end < 0) this.fail(this.pos, "unbalanced bracket: '[' without ']'");
        const index = this.text.slice(this.pos + 1, end);
        if (!/^\d+$/.test(index)) this.fail(this.pos + 1, `array index must be a number: ${index}`);
        path.push(Number(index));
        this.pos = end + 1;
      }
    }
    const text = this.text.slice(at, this.pos);
    return { kind: 'placeholder', text, at, name: name as Placeholder, path };
  }

  func(name: 'len' | 'has' | 'pat' | 'any', at: number): Operand {
    const open = at + name.length;
    this.pos = open + 1;
    if (name === 'len' || name === 'has') {
      this.spaces();
      if (this.text[this.pos] !== '[') this.fail(this.pos, `${name}() takes a placeholder`);
      const inner = this.placeholder();
      this.spaces();
      if (this.text[this.pos] === ']') this.fail(this.pos, "unbalanced bracket: ']' without '['");
      if (!this.text.includes(')', this.pos))
        this.fail(open, "unbalanced parenthesis: '(' without ')'");
      if (this.text[this.pos] !== ')') this.fail(this.pos, `expected ')' to close ${name}(`);
      this.pos++;
      return { kind: name, text: this.text.slice(at, this.pos), at, inner };
    }
    let depth = 1;
    let i = this.pos;
    for (; i < this.text.length && depth > 0; i++) {
      if (this.text[i] === '(') depth++;
      else if (this.text[i] === ')') depth--;
    }
    if (depth > 0) this.fail(open, "unbalanced parenthesis: '(' without ')'");
    const inside = this.text.slice(this.pos, i - 1);
    this.pos = i;
    const text = this.text.slice(at, i);
    if (name === 'pat') return { kind: 'pat', text, at, pattern: inside.trim() };
    const options: string[] = [];
    let offset = open + 1;
    for (const raw of inside.split(',')) {
      if (raw.trim() === '') this.fail(offset, 'any() needs values between its commas');
      options.push(raw.trim());
      offset += raw.length + 1;
    }
    return { kind: 'any', text, at, options };
  }

  operator(): Operator {
    this.spaces();
    const at = this.pos;
    const rest = this.text.slice(at);
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (op === undefined) {
      if (/^[=!<>]/.test(rest)) this.fail(at, `unknown operator ${/^[=!<>]+/.exec(rest)?.[0]}`);
      if (rest.startsWith(')')) this.fail(at, "unbalanced parenthesis: ')' without '('");
      this.fail(at, 'missing operator (==, !=, <, <=, >, >=)');
    }
    this.pos += op.length;
    if (/^[=!<>]/.test(this.text.slice(this.pos)))
      this.fail(at, `unknown operator ${/^[=!<>]+/.exec(rest)?.[0]}`);
    return op;
  }
}

/** Checks what the grammar alone cannot: functions and literals that fit their operator. */
function checkSides(p: ParsedCondition): void {
  const ordered = p.operator !== '==' && p.operator !== '!=';
  for (const side of [p.left, p.right]) {
    if (ordered && (side.kind === 'pat' || side.kind === 'any'))
      throw new ConditionError(side.at, `${side.kind}() compares only with == or !=`);
    if (side.kind !== 'literal') continue;
    const isDuration = durationMs(side.text) !== null;
    if (/^[-+]?\d/.test(side.text) && numberOf(side.text) === null && !isDuration && ordered)
      throw new ConditionError(side.at, `bad number or duration ${side.text} (e.g. 500, 48h, 30m)`);
    if (ordered && numberOf(side.text) === null && !isDuration)
      throw new ConditionError(side.at, `${side.text} is not a number or a duration`);
  }
  if (p.left.kind === 'literal' && p.right.kind === 'literal')
    throw new ConditionError(p.left.at, 'a condition needs a placeholder or function on one side');
}

/** Parses a condition's text into its parts (throws ConditionError naming the position). */
export function parseParts(text: string): ParsedCondition {
  const parser = new Parser(text);
  const left = parser.operand('left');
  const operator = parser.operator();
  const right = parser.operand('right');
  parser.spaces();
  if (parser.pos < text.length) {
    const c = text[parser.pos];
    if (c === ')') parser.fail(parser.pos, "unbalanced parenthesis: ')' without '('");
    if (c === ']') parser.fail(parser.pos, "unbalanced bracket: ']' without '['");
    parser.fail(parser.pos, 'unexpected text after the condition');
  }
  const parsed = { left, operator, right };
  checkSides(parsed);
  return parsed;
}

function placeholdersOf(p: ParsedCondition): Placeholder[] {
  const names = new Set<Placeholder>();
  for (const side of [p.left, p.right]) {
    if (side.kind === 'placeholder') names.add(side.name);
    if (side.kind === 'len' || side.kind === 'has') names.add(side.inner.name);
  }
  return [...names];
}

/** Parses one condition (throws ConditionError naming the position). */
export function parseCondition(text: string): Condition {
  const parsed = parseParts(text);
  return {
    text,
    placeholders: placeholdersOf(parsed),
    check: (o) => evaluate(parsed, o),
  };
}

/** The first failing condition's description, or null when all hold. */
export function firstFailure(conditions: readonly Condition[], o: Observation): string | null {
  for (const condition of conditions) {
    const failed = condition.check(o);
    if (failed !== null) return failed;
  }
  return null;
}
