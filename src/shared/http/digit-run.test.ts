import { describe, expect, it } from 'vitest';
import { hasDigitRun, parseJsonBody } from './validation-hook.js';

/** What hasDigitRun stands in for. */
const regexSays = (text: string, run: number) => new RegExp(`\\d{${run}}`).test(text);

describe('hasDigitRun', () => {
  it('agrees with a regex on runs of every length at every offset', () => {
    for (const run of [1, 2, 3, 7]) {
      for (let before = 0; before < 12; before++) {
        for (let length = 0; length < 20; length++) {
          for (const pad of ['', 'x', 'xyz1']) {
            const text = `${'a'.repeat(before)}${'5'.repeat(length)}${pad}`;
            expect(hasDigitRun(text, run), `${run} ${text}`).toBe(regexSays(text, run));
          }
        }
      }
    }
  });

  it('counts only ASCII digits, as \\d does', () => {
    expect(hasDigitRun('12\u0663\u0664', 3)).toBe(false);
    expect(hasDigitRun('12/3', 3)).toBe(false);
    expect(hasDigitRun('12:3', 3)).toBe(false);
  });

  it('has a body with an integer of 4301 digits refused, and 4300 taken', () => {
    expect(() => parseJsonBody(Buffer.from(`{"a":${'9'.repeat(4301)}}`))).toThrow();
    expect(parseJsonBody(Buffer.from(`{"a":${'9'.repeat(4300)}}`))).toEqual({
      a: Number('9'.repeat(4300)),
    });
    expect(parseJsonBody(Buffer.from(`{"a":"${'9'.repeat(9000)}"}`))).toEqual({
      a: '9'.repeat(9000),
    });
  });
});
