/**
 * Codex's `~/.codex/config.toml`, edited as text: the one top-level `notify = [...]` (before the
 * first table) is found, set or taken out, and every other byte of the file stays as it was. No
 * TOML library: a small scanner that knows TOML's strings, comments, arrays and inline tables
 * is enough to find where the top-level keys are and where the first table begins.
 */

/** A top-level `key = value` of the file: where it is (from its line's start to past its end). */
export interface TopLevelEntry {
  key: string;
  start: number;
  end: number;
  /** The value's text, without a trailing comment. */
  value: string;
}

/** The top-level entries, and where the first table header is (null: none). */
export interface TopLevel {
  entries: TopLevelEntry[];
  firstTable: number | null;
}

const WS = new Set([' ', '\t']);

/** Scans a TOML text's top level; throws when it is not TOML this scanner can read safely. */
export function scanTopLevel(text: string): TopLevel {
  const entries: TopLevelEntry[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    let j = i;
    while (j < n && WS.has(text[j] as string)) j++;
    if (j >= n) break;
    const c = text[j];
    if (c === '\n' || c === '\r') {
      i = lineEnd(text, j);
      continue;
    }
    if (c === '#') {
      i = lineEnd(text, j);
      continue;
    }
    if (c === '[') return { entries, firstTable: i };
    const eq = keyEnd(text, j);
    const key = normalKey(text.slice(j, eq).trim());
    const { end, valueEnd } = valueExtent(text, eq + 1);
    entries.push({ key, start: i, end, value: text.slice(eq + 1, valueEnd).trim() });
    i = end;
  }
  return { entries, firstTable: null };
}

/** Past the end of the line `at` is on (its newline included). */
function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
}

function fail(text: string, at: number, what: string): never {
  const line = text.slice(0, at).split('\n').length;
  throw new Error(`line ${line}: ${what}`);
}

/** The index of the `=` that ends the key starting at `at`. */
function keyEnd(text: string, at: number): number {
  let k = at;
  while (k < text.length) {
    const c = text[k];
    if (c === '=') return k;
    if (c === '"' || c === "'") k = stringEnd(text, k);
    else if (c === '\n' || c === '#') break;
    else k++;
  }
  return fail(text, at, 'a line that is neither a key = value, a table nor a comment');
}

/** `notify`, `"notify"` and `'notify'` are the same key; a dotted key is kept as written. */
function normalKey(raw: string): string {
  const quoted = /^"([^"\\]*)"$|^'([^']*)'$/.exec(raw);
  return quoted === null ? raw : (quoted[1] ?? quoted[2] ?? '');
}

/** Past the end of the string that starts at `at` (basic, literal, or either multi-line). */
function stringEnd(text: string, at: number): number {
  const quote = text[at] as string;
  const triple = text.startsWith(quote.repeat(3), at);
  let k = at + (triple ? 3 : 1);
  while (k < text.length) {
    const c = text[k];
    if (c === '\\' && quote === '"') {
      k += 2;
      continue;
    }
    if (!triple && (c === '\n' || c === '\r')) break;
    if (triple && text.startsWith(quote.repeat(3), k)) {
      k += 3;
      // Up to two more quotes belong to the string (`""""` ends in a quote).
      for (let extra = 0; extra < 2 && text[k] === quote; extra++) k++;
      return k;
    }
    if (!triple && c === quote) return k + 1;
    k++;
  }
  return fail(text, at, 'a string that does not end');
}

/** Where the value starting at `at` ends: past its line's newline, and before a comment. */
function valueExtent(text: string, at: number): { end: number; valueEnd: number } {
  let depth = 0;
  let k = at;
  let valueEnd = -1;
  while (k < text.length) {
    const c = text[k];
    if (c === '"' || c === "'") {
      k = stringEnd(text, k);
      continue;
    }
    if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth < 0) fail(text, k, `an unmatched ${c}`);
    } else if (c === '#') {
      if (depth === 0 && valueEnd < 0) valueEnd = k;
      k = text.indexOf('\n', k);
      if (k < 0) k = text.length;
      continue;
    } else if (c === '\n' && depth === 0) {
      return { end: k + 1, valueEnd: valueEnd < 0 ? k : valueEnd };
    }
    k++;
  }
  if (depth !== 0) fail(text, at, 'an array or inline table that does not end');
  return { end: text.length, valueEnd: valueEnd < 0 ? text.length : valueEnd };
}

/** A TOML array of strings as a list (null: the value is something else). */
export function stringArray(value: string): string[] | null {
  const out: string[] = [];
  let k = 0;
  const skip = () => {
    for (;;) {
      while (k < value.length && /\s/.test(value[k] as string)) k++;
      if (value[k] !== '#') return;
      while (k < value.length && value[k] !== '\n') k++;
    }
  };
  skip();
  if (value[k] !== '[') return null;
  k++;
  for (;;) {
    skip();
    if (value[k] === ']') {
      k++;
      break;
    }
    const one = tomlStringAt(value, k);
    if (one === null) return null;
    out.push(one.value);
    k = one.end;
    skip();
    if (value[k] === ',') k++;
    else if (value[k] !== ']') return null;
  }
  skip();
  return k === value.length ? out : null;
}

const ESCAPES: Record<string, string> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  e: '\u001b',
  '"': '"',
  '\\': '\\',
};

/** A one-line basic or literal string at `at`, read (null: not one). */
function tomlStringAt(text: string, at: number): { value: string; end: number } | null {
  const quote = text[at];
  if (quote !== '"' && quote !== "'") return null;
  if (text.startsWith(quote.repeat(3), at)) return null;
  let k = at + 1;
  let value = '';
  while (k < text.length) {
    const c = text[k] as string;
    if (c === quote) return { value, end: k + 1 };
    if (c === '\n') return null;
    if (c === '\\' && quote === '"') {
      const e = text[k + 1] ?? '';
      if (e === 'u' || e === 'U') {
        const digits = text.slice(k + 2, k + (e === 'u' ? 6 : 10));
        if (!/^[0-9a-fA-F]+$/.test(digits)) return null;
        value += String.fromCodePoint(Number.parseInt(digits, 16));
        k += 2 + digits.length;
        continue;
      }
      const plain = ESCAPES[e];
      if (plain === undefined) return null;
      value += plain;
      k += 2;
      continue;
    }
    value += c;
    k++;
  }
  return null;
}

/** A TOML basic string for `value`. */
export function tomlString(value: string): string {
  let out = '"';
  for (const c of value) {
    const code = c.codePointAt(0) ?? 0;
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return `${out}"`;
}

/** Whether a notify argv is one `hooks install codex` wrote: the Panoptes agent's `bell … --codex`. */
export function isBellNotify(argv: readonly string[] | null): boolean {
  if (argv === null) return false;
  const bell = argv.indexOf('bell');
  return (
    bell > 0 &&
    argv.slice(0, bell).some((w) => /panoptes/i.test(w)) &&
    argv.slice(bell + 1).includes('--codex')
  );
}

/** What setting notify did: the new text, and whose notify was there before. */
export interface NotifyEdit {
  text: string;
  /** The notify that was there: none, the bell's, or another program's (its argv, or null). */
  before: { kind: 'none' } | { kind: 'bell' } | { kind: 'other'; value: string };
}

/** The single top-level notify entry, if any; throws on two. */
function notifyEntry(top: TopLevel): TopLevelEntry | null {
  const found = top.entries.filter((e) => e.key === 'notify');
  if (found.length > 1) throw new Error('notify is set twice at the top level');
  return found[0] ?? null;
}

/**
 * The text with a top-level `notify = argv`: the bell's or a missing one replaced in its place, or
 * a new line after the last top-level key (before the first table; at the start when there is no
 * top-level key). Another program's notify is replaced only with `force`; else the text is
 * returned unchanged with `before.kind === 'other'`.
 */
export function withNotify(text: string, argv: readonly string[], force: boolean): NotifyEdit {
  const top = scanTopLevel(text);
  const line = `notify = [${argv.map(tomlString).join(', ')}]\n`;
  const entry = notifyEntry(top);
  if (entry !== null) {
    const bell = isBellNotify(stringArray(entry.value));
    if (!bell && !force) return { text, before: { kind: 'other', value: entry.value } };
    const before = bell
      ? ({ kind: 'bell' } as const)
      : { kind: 'other' as const, value: entry.value };
    return { text: text.slice(0, entry.start) + line + text.slice(entry.end), before };
  }
  const last = top.entries.at(-1);
  const at = last === undefined ? 0 : last.end;
  const gap = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
  return { text: text.slice(0, at) + gap + line + text.slice(at), before: { kind: 'none' } };
}

/** The text without the bell's top-level notify (unchanged when there is none, or another's). */
export function withoutNotify(text: string): { text: string; removed: boolean; other: boolean } {
  const entry = notifyEntry(scanTopLevel(text));
  if (entry === null) return { text, removed: false, other: false };
  if (!isBellNotify(stringArray(entry.value))) return { text, removed: false, other: true };
  return { text: text.slice(0, entry.start) + text.slice(entry.end), removed: true, other: false };
}
