import { isAscii, isUtf8 } from 'node:buffer';
/**
 * Where and why Python's `json.loads` (CPython 3.13+, the C scanner FastAPI uses through
 * Starlette's `request.json()`) refuses a text: FastAPI answers a body it cannot decode with
 * `json_invalid`, `loc: ["body", pos]` and `ctx.error` set to Python's own message, so a client
 * comparing answers sees the same words and the same position. Positions count code points, as
 * Python's `str` indices do.
 */
export interface PythonJsonError {
  msg: string;
  /** Index in code points, as Python reports it. */
  pos: number;
}

/** Python's JSON whitespace: exactly these four. */
function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** A refusal found by the scanner, thrown to unwind (positions in UTF-16 units until the end). */
class Refusal {
  constructor(
    readonly msg: string,
    readonly at: number,
  ) {}
}

const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't'].map((c) => c.charCodeAt(0)));

/** The error-finding half of CPython's `_json.c` scanner: validates, builds nothing. */
class Scanner {
  constructor(private readonly s: string) {}

  private skipWs(i: number): number {
    let j = i;
    while (j < this.s.length && isWs(this.s.charCodeAt(j))) j += 1;
    return j;
  }

  /** scanstring_unicode: `end` is just after the opening quote; returns the index after the close. */
  private string(end: number): number {
    const s = this.s;
    const begin = end - 1;
    let next = end;
    for (;;) {
      let c = -1;
      for (; next < s.length; next += 1) {
        c = s.charCodeAt(next);
        if (c === 0x22 || c === 0x5c) break;
        if (c <= 0x1f) throw new Refusal('Invalid control character at', next);
      }
      if (next >= s.length) throw new Refusal('Unterminated string starting at', begin);
      if (c === 0x22) return next + 1;
      next += 1; // the backslash
      if (next >= s.length) throw new Refusal('Unterminated string starting at', begin);
      const e = s.charCodeAt(next);
      if (e !== 0x75) {
        if (!ESCAPES.has(e)) throw new Refusal('Invalid \\escape', next - 1);
        next += 1;
        continue;
      }
      next += 1;
      let stop = next + 4;
      if (stop >= s.length) throw new Refusal('Invalid \\uXXXX escape', next - 1);
      let code = 0;
      for (; next < stop; next += 1) {
        const d = s.charCodeAt(next);
        if (!isHex(d)) throw new Refusal('Invalid \\uXXXX escape', stop - 5);
        code = code * 16 + Number.parseInt(s[next] ?? '0', 16);
      }
      // A high surrogate followed by a second \u escape: that one is read (and checked) too.
      if (
        code >= 0xd800 &&
        code <= 0xdbff &&
        stop + 6 < s.length &&
        s.charCodeAt(next) === 0x5c &&
        s.charCodeAt(next + 1) === 0x75
      ) {
        next += 2;
        stop += 6;
        let low = 0;
        for (; next < stop; next += 1) {
          const d = s.charCodeAt(next);
          if (!isHex(d)) throw new Refusal('Invalid \\uXXXX escape', stop - 5);
          low = low * 16 + Number.parseInt(s[next] ?? '0', 16);
        }
        // Not a low surrogate: CPython steps back and reads it again as its own escape.
        if (low < 0xdc00 || low > 0xdfff) next -= 6;
      }
    }
  }

  /** _match_number_unicode; a text that is no number is "Expecting value" at `start`. */
  private number(start: number): number {
    const s = this.s;
    const last = s.length - 1;
    let i = start;
    if (s.charCodeAt(i) === 0x2d) {
      i += 1;
      if (i > last) throw new Refusal('Expecting value', start);
    }
    const first = s.charCodeAt(i);
    if (first >= 0x31 && first <= 0x39) {
      i += 1;
      while (i <= last && isDigit(s.charCodeAt(i))) i += 1;
    } else if (first === 0x30) {
      i += 1;
    } else {
      throw new Refusal('Expecting value', start);
    }
    const intEnd = i;
    if (i < last && s.charCodeAt(i) === 0x2e && isDigit(s.charCodeAt(i + 1))) {
      i += 2;
      while (i <= last && isDigit(s.charCodeAt(i))) i += 1;
    }
    if (i < last && (s.charCodeAt(i) === 0x65 || s.charCodeAt(i) === 0x45)) {
      const eStart = i;
      i += 1;
      if (i < last && (s.charCodeAt(i) === 0x2d || s.charCodeAt(i) === 0x2b)) i += 1;
      while (i <= last && isDigit(s.charCodeAt(i))) i += 1;
      if (!isDigit(s.charCodeAt(i - 1))) i = eStart;
    }
    // Python's int() refuses more than 4300 digits: a ValueError, not a JSONDecodeError.
    const digits = intEnd - start - (s.charCodeAt(start) === 0x2d ? 1 : 0);
    if (i === intEnd && digits > 4300) throw new TooManyDigits();
    return i;
  }

  /** scan_once_unicode: one value at `i`. */
  value(i: number, depth: number): number {
    const s = this.s;
    if (i >= s.length) throw new Refusal('Expecting value', i);
    const c = s.charCodeAt(i);
    if (c === 0x22) return this.string(i + 1);
    if (c === 0x7b) return this.object(i + 1, depth + 1);
    if (c === 0x5b) return this.array(i + 1, depth + 1);
    for (const word of ['null', 'true', 'false']) {
      if (s.startsWith(word, i)) return i + word.length;
    }
    // NaN and ±Infinity are Python's, not JSON's: the board refuses them (docs/internals/decisions.md).
    return this.number(i);
  }

  private object(start: number, depth: number): number {
    const s = this.s;
    let i = this.skipWs(start);
    if (i < s.length && s.charCodeAt(i) === 0x7d) return i + 1;
    for (;;) {
      if (i >= s.length || s.charCodeAt(i) !== 0x22) {
        throw new Refusal('Expecting property name enclosed in double quotes', i);
      }
      i = this.skipWs(this.string(i + 1));
      if (i >= s.length || s.charCodeAt(i) !== 0x3a)
        throw new Refusal("Expecting ':' delimiter", i);
      i = this.skipWs(this.value(this.skipWs(i + 1), depth));
      if (i < s.length && s.charCodeAt(i) === 0x7d) return i + 1;
      if (i >= s.length || s.charCodeAt(i) !== 0x2c)
        throw new Refusal("Expecting ',' delimiter", i);
      const comma = i;
      i = this.skipWs(i + 1);
      if (i < s.length && s.charCodeAt(i) === 0x7d) {
        throw new Refusal('Illegal trailing comma before end of object', comma);
      }
    }
  }

  private array(start: number, depth: number): number {
    const s = this.s;
    let i = this.skipWs(start);
    if (i < s.length && s.charCodeAt(i) === 0x5d) return i + 1;
    for (;;) {
      i = this.skipWs(this.value(i, depth));
      if (i < s.length && s.charCodeAt(i) === 0x5d) return i + 1;
      if (i >= s.length || s.charCodeAt(i) !== 0x2c)
        throw new Refusal("Expecting ',' delimiter", i);
      const comma = i;
      i = this.skipWs(i + 1);
      if (i < s.length && s.charCodeAt(i) === 0x5d) {
        throw new Refusal('Illegal trailing comma before end of array', comma);
      }
    }
  }

  /** JSONDecoder.decode: a value between optional whitespace, then nothing else. */
  document(): void {
    const end = this.skipWs(this.value(this.skipWs(0), 0));
    if (end !== this.s.length) throw new Refusal('Extra data', end);
  }
}

/** Thrown for an integer Python's `int()` will not read (over 4300 digits). */
export class TooManyDigits extends Error {
  constructor() {
    super('integer with more than 4300 digits');
    this.name = 'TooManyDigits';
  }
}

function codePointIndex(text: string, unit: number): number {
  let count = 0;
  for (let i = 0; i < unit && i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < unit) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i += 1;
    }
    count += 1;
  }
  return count;
}

/**
 * Why Python's `json.loads(text)` would refuse `text`, or null when it would not. Throws
 * TooManyDigits where Python raises a ValueError instead (FastAPI answers that 400).
 */
export function pythonJsonError(text: string): PythonJsonError | null {
  try {
    new Scanner(text).document();
    return null;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { msg: error.msg, pos: codePointIndex(text, error.at) };
  }
}

const BOM_UTF8 = [0xef, 0xbb, 0xbf];

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

/** Python's `json.detect_encoding`: a BOM, else the pattern of zero bytes at the start. */
function detectEncoding(b: Uint8Array): string {
  if (startsWith(b, [0x00, 0x00, 0xfe, 0xff]) || startsWith(b, [0xff, 0xfe, 0x00, 0x00])) {
    return 'utf-32';
  }
  if (startsWith(b, [0xfe, 0xff]) || startsWith(b, [0xff, 0xfe])) return 'utf-16';
  if (startsWith(b, BOM_UTF8)) return 'utf-8-sig';
  if (b.length >= 4) {
    if (b[0] === 0) return b[1] ? 'utf-16-be' : 'utf-32-be';
    if (b[1] === 0) return b[2] || b[3] ? 'utf-16-le' : 'utf-32-le';
  } else if (b.length === 2) {
    if (b[0] === 0) return 'utf-16-be';
    if (b[1] === 0) return 'utf-16-le';
  }
  return 'utf-8';
}

function decodeUtf32(b: Uint8Array, littleEndian: boolean): string | null {
  if (b.length % 4 !== 0) return null;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let out = '';
  for (let i = 0; i < b.length; i += 4) {
    const cp = view.getUint32(i, littleEndian);
    if (cp > 0x10ffff) return null;
    out += String.fromCodePoint(cp);
  }
  return out;
}

/**
 * The text Python's `json.loads(bytes)` decodes a body into (a UTF-8 BOM is dropped, UTF-16 and
 * UTF-32 are recognised), or null where Python's decoder raises (FastAPI then answers 400).
 */
/** One decoder for every body (decode without `stream` keeps no state between calls). */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function decodeJsonBytes(bytes: Uint8Array): string | null {
  const encoding = detectEncoding(bytes);
  try {
    switch (encoding) {
      case 'utf-8':
        // Native checks, then a plain decode: TextDecoder's fatal mode cost the report path
        // three times its JSON.parse (bench: reports).
        if (isAscii(bytes))
          return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
        if (!isUtf8(bytes)) return null;
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
      case 'utf-8-sig':
        return UTF8.decode(bytes.subarray(3));
      case 'utf-16': {
        const little = bytes[0] === 0xff;
        return new TextDecoder(little ? 'utf-16le' : 'utf-16be', {
          fatal: true,
          ignoreBOM: true,
        }).decode(bytes.subarray(2));
      }
      case 'utf-16-le':
      case 'utf-16-be':
        return new TextDecoder(encoding.replace('-le', 'le').replace('-be', 'be'), {
          fatal: true,
          ignoreBOM: true,
        }).decode(bytes);
      case 'utf-32':
        return decodeUtf32(bytes.subarray(4), bytes[0] === 0xff);
      default:
        return decodeUtf32(bytes, encoding === 'utf-32-le');
    }
  } catch {
    return null;
  }
}
