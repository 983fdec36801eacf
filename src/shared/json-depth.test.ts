import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, tooDeepAt } from './json-depth.js';

const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

describe('tooDeepAt', () => {
  it('accepts JSON up to the limit and finds the first bracket past it', () => {
    expect(tooDeepAt(nest(MAX_JSON_DEPTH))).toBe(-1);
    expect(tooDeepAt(nest(MAX_JSON_DEPTH + 1))).toBe(MAX_JSON_DEPTH);
    expect(tooDeepAt(`{"a":${nest(3)}}`, 3)).toBe(7);
    expect(tooDeepAt('{"a":{"b":{"c":1}}}', 3)).toBe(-1);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ s: `\\"${'['.repeat(500)}`, t: '{'.repeat(500) });
    expect(tooDeepAt(text, 2)).toBe(-1);
  });

  it('keeps JSON.stringify safe: anything it lets through serialises again', () => {
    const value: unknown = JSON.parse(nest(MAX_JSON_DEPTH));
    expect(() => JSON.stringify(value)).not.toThrow();
  });
});
