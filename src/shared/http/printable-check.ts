import { isAscii } from 'node:buffer';
import type { TSchema } from '../typebox.js';
import { LINES_PATTERN, ONE_LINE_PATTERN } from '../wire/free-text.js';

const BACKSLASH = 0x5c;
const DEL = 0x7f;
const FREE_TEXT = new Set([ONE_LINE_PATTERN, LINES_PATTERN]);

/**
 * Whether every string in the JSON text `bytes` (which parsed) is printable ASCII, 0x20–0x7e:
 * ASCII, no backslash (so no escape) and no DEL; parsed JSON has no raw control character in a
 * string. Such strings match both free-text patterns, so a check need not test them one by one.
 */
export function isPrintableText(bytes: Uint8Array): boolean {
  return isAscii(bytes) && bytes.indexOf(BACKSLASH) < 0 && bytes.indexOf(DEL) < 0;
}

/**
 * `schema` without its free-text patterns (ONE_LINE_PATTERN, LINES_PATTERN), every other
 * keyword kept: what a body of printable text (isPrintableText) has left to be checked against.
 */
export function withoutFreeTextPatterns(schema: TSchema): TSchema {
  return strip(schema) as TSchema;
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string | symbol, unknown> = {};
  const source = value as Record<string | symbol, unknown>;
  for (const key of Reflect.ownKeys(source)) {
    const item = source[key];
    if (key === 'pattern' && typeof item === 'string' && FREE_TEXT.has(item)) continue;
    out[key] = strip(item);
  }
  return out;
}
