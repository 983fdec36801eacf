import { isAscii } from 'node:buffer';

/**
 * Top-level members cut out of a JSON object's own bytes, without parsing it again or
 * serialising it again (the report path wrote every overview anew, ~6 µs a report).
 *
 * `cutMembers(text, drop)` is exactly `JSON.stringify(rest)` where `rest` is `JSON.parse(text)`
 * without the members named in `drop`, as UTF-8 bytes (good until its next call) — or null when
 * the text is not written as JSON.stringify writes it, and only stringify says what it would
 * be. It answers only for text it can prove equal, byte for byte:
 *   - ASCII (and, as it was parsed, valid JSON), no whitespace between tokens, a `{` first and its `}` last;
 *   - in strings, only the escapes stringify writes for ASCII: \" \\ \n \t \b \f;
 *   - numbers as JS writes them: no exponent, no `-0`, no fraction ending in 0, at most 15
 *     significant digits (which a double keeps exactly), not below 1e-6 (written 1e-7 by JS);
 *   - no key twice in one object (JSON.parse keeps the last value at the first place), and no
 *     key beginning with a digit (JS lists array-index keys first).
 * Anything else: null, and the caller serialises the parsed value as before.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
/** An object with more keys than this is left to stringify (duplicates are found pairwise). */
const KEYS_MAX = 256;
/** Significant digits a double keeps for any decimal (DBL_DIG). */
const DIGITS_MAX = 15;

/** The escapes JSON.stringify writes in an ASCII string (besides \u00XX, which is refused). */
function isStringifyEscape(e: number | undefined): boolean {
  // " \ b f n t (\r is refused: the plain-body rule refuses it too; \/ stringify writes as /).
  return e === QUOTE || e === BACKSLASH || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x74;
}

/** Whether text[from, to) is exactly one of `names`. */
function isOneOf(text: Uint8Array, from: number, to: number, names: readonly string[]): boolean {
  for (const name of names) {
    if (name.length !== to - from) continue;
    let same = true;
    for (let k = 0; k < name.length; k++) {
      if (text[from + k] !== name.charCodeAt(k)) {
        same = false;
        break;
      }
    }
    if (same) return true;
  }
  return false;
}

/** Whether text[a, a + length) and text[b, b + length) hold the same bytes. */
function sameBytes(text: Uint8Array, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (text[a + k] !== text[b + k]) return false;
  return true;
}

/** The end of the number that starts at `i`, or -1 if JS would not write it so. */
function numberEnd(text: Uint8Array, i: number): number {
  let j = i;
  const negative = text[j] === MINUS;
  if (negative) j++;
  const intStart = j;
  while (j < text.length && (text[j] as number) >= ZERO && (text[j] as number) <= NINE) j++;
  const intLength = j - intStart;
  if (intLength === 0) return -1;
  const zeroInt = intLength === 1 && text[intStart] === ZERO;
  let significant = zeroInt ? 0 : intLength;
  if (text[j] === DOT) {
    j++;
    const fracStart = j;
    while (j < text.length && (text[j] as number) >= ZERO && (text[j] as number) <= NINE) j++;
    if (j === fracStart || text[j - 1] === ZERO) return -1;
    if (zeroInt) {
      let k = fracStart;
      while (text[k] === ZERO) k++;
      // 0.0000001 is written 1e-7.
      if (k - fracStart >= 6) return -1;
      significant = j - k;
    } else {
      significant += j - fracStart;
    }
  } else if (negative && zeroInt) {
    return -1; // -0 is written 0
  }
  const next = text[j];
  if (next === 0x65 || next === 0x45) return -1; // an exponent
  return significant > DIGITS_MAX ? -1 : j;
}

/** Where cutMembers writes its answer: reused, so each answer holds until the next call. */
let scratch = Buffer.allocUnsafeSlow(16 * 1024);

/**
 * JSON.stringify of the object `text` holds without the top-level members named in `drop`
 * (see the module comment), or null when that cannot be cut from `text` as it is. The bytes
 * are good until the next call, which writes over them: copy them before.
 */
export function cutMembers(text: Uint8Array, drop: readonly string[]): Buffer | null {
  const n = text.length;
  if (n < 2 || text[0] !== LBRACE || text[n - 1] !== RBRACE || !isAscii(text)) return null;
  const escapes = text.indexOf(BACKSLASH) >= 0;
  // Per open container: (where its keys start in `keys`) * 2 + 1 for an object, + 0 an array.
  const stack: number[] = [];
  // Each key of the open objects: where it starts and its length (keys[0, top)); escapes are
  // only those stringify writes, so keys with the same bytes are the same key and no other.
  const keys: number[] = [];
  let top = 0;
  // The kept top-level members: start and end (exclusive) of each.
  const kept: number[] = [];
  let memberStart = -1;
  let dropping = false;
  let expectKey = false;
  let i = 0;
  while (i < n) {
    const c = text[i] as number;
    if (c === QUOTE) {
      // The closing quote: past escapes (checked) if the text has any backslash at all.
      let j = i + 1;
      if (escapes) {
        for (;;) {
          const d = text[j];
          if (d === QUOTE) break;
          if (d === undefined) return null;
          if (d === BACKSLASH) {
            if (!isStringifyEscape(text[j + 1])) return null;
            j += 2;
          } else {
            j++;
          }
        }
      } else {
        while (text[j] !== QUOTE) if (++j >= n) return null;
      }
      if (expectKey) {
        const first = text[i + 1] as number;
        if (first >= ZERO && first <= NINE) return null;
        const from = (stack[stack.length - 1] as number) >>> 1;
        const length = j - i;
        for (let k = from; k < top; k += 2) {
          if (keys[k + 1] === length && sameBytes(text, keys[k] as number, i, length)) return null;
        }
        if (top - from >= 2 * KEYS_MAX) return null;
        keys[top++] = i;
        keys[top++] = length;
        if (stack.length === 1) {
          memberStart = i;
          dropping = isOneOf(text, i + 1, j, drop);
        }
        expectKey = false;
        if (text[j + 1] !== COLON) return null;
        i = j + 2;
      } else {
        i = j + 1;
      }
      continue;
    }
    if (c === LBRACE || c === LBRACKET) {
      stack.push(top * 2 + (c === LBRACE ? 1 : 0));
      expectKey = c === LBRACE;
      i++;
      continue;
    }
    if (c === COMMA || c === RBRACE || c === RBRACKET) {
      if (stack.length === 1 && memberStart >= 0 && c !== RBRACKET) {
        // A top-level member ends here.
        if (!dropping) {
          // Members next to each other are copied as one run (with their comma).
          if (kept.length > 0 && kept[kept.length - 1] === memberStart - 1)
            kept[kept.length - 1] = i;
          else kept.push(memberStart, i);
        }
        memberStart = -1;
      }
      if (c === COMMA) {
        expectKey = ((stack[stack.length - 1] as number) & 1) === 1;
      } else {
        const level = stack.pop();
        if (level === undefined) return null;
        top = level >>> 1;
        expectKey = false;
        // The top object's end must be the text's end.
        if (stack.length === 0 && i !== n - 1) return null;
      }
      i++;
      continue;
    }
    if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const end = numberEnd(text, i);
      if (end < 0) return null;
      i = end;
      continue;
    }
    if (c === 0x74 || c === 0x6e)
      i += 4; // true, null
    else if (c === 0x66)
      i += 5; // false
    else return null; // whitespace, or not JSON
  }
  if (stack.length !== 0) return null;
  const runs = kept.length / 2;
  let length = 2 + Math.max(0, runs - 1);
  for (let k = 0; k < kept.length; k += 2) length += (kept[k + 1] as number) - (kept[k] as number);
  // The board copies it into the machine's slot at once (keepOverview), so a report costs no
  // buffer of its own (Node's pool takes only those under 4 KiB).
  if (scratch.length < length)
    scratch = Buffer.allocUnsafeSlow(Math.max(length, 2 * scratch.length));
  const out = scratch.subarray(0, length);
  const source = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  out[0] = LBRACE;
  let at = 1;
  for (let k = 0; k < kept.length; k += 2) {
    if (k > 0) out[at++] = COMMA;
    at += source.copy(out, at, kept[k] as number, kept[k + 1] as number);
  }
  out[at] = RBRACE;
  return out;
}

/**
 * The last object parseJsonBody made, and its bytes: one slot, not a WeakMap (whose write
 * barrier and lookup cost the report path more than the slot). Whoever takes the object in
 * the same turn finds its bytes; a body parsed in between only makes the next one miss.
 */
let lastValue: object | null = null;
let lastBytes: Uint8Array | null = null;

/**
 * Notes that `value` is what JSON.parse made of `bytes` (parseJsonBody calls it), so that
 * whoever takes `value` as it is can cut parts out of its bytes (cutMembers) instead of
 * serialising them again. A checker that changes a body makes a new object, which has none.
 */
export function noteJsonSource(value: unknown, bytes: Uint8Array): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    lastValue = value;
    lastBytes = bytes;
  } else {
    lastValue = null;
    lastBytes = null;
  }
}

/**
 * The bytes `value` was parsed from, if it is the body parsed last, untouched
 * (noteJsonSource); the slot is then emptied (nothing is held past its request).
 */
export function takeJsonSource(value: object): Uint8Array | undefined {
  if (value !== lastValue || lastBytes === null) return undefined;
  const bytes = lastBytes;
  lastValue = null;
  lastBytes = null;
  return bytes;
}
