import { describe, expect, it } from 'vitest';
import { LINES_PATTERN, ONE_LINE_PATTERN, safeText } from './free-text.js';

const ISSUE_25 = 'rack\u0000move\u202E\u2066gnp.exe\r\nfake entry\u001b[31m';

describe('free text', () => {
  it('the patterns refuse controls and bidi overrides, and take ordinary text in any script', () => {
    const oneLine = new RegExp(ONE_LINE_PATTERN, 'u');
    const lines = new RegExp(LINES_PATTERN, 'u');
    for (const ok of ['rack move', 'Wartung für Rack 7', 'ラック移動', 'נקודה', 'a\tb', '']) {
      expect(oneLine.test(ok), ok).toBe(true);
      expect(lines.test(ok), ok).toBe(true);
    }
    expect(lines.test('done\nall tests pass')).toBe(true);
    expect(oneLine.test('done\nall tests pass')).toBe(false);
    for (const bad of [
      ISSUE_25,
      'a\u0000',
      'a\u001b[31m',
      'a\r',
      'a\u007f',
      'a\u0085',
      'a\u202e',
      'a\u2069',
      'a\u2028',
    ]) {
      expect(oneLine.test(bad), JSON.stringify(bad)).toBe(false);
      expect(lines.test(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('safeText replaces each unsafe character with U+FFFD, and leaves clean text as it is', () => {
    expect(safeText(ISSUE_25)).toBe(
      'rack\ufffdmove\ufffd\ufffdgnp.exe\ufffd\ufffdfake entry\ufffd[31m',
    );
    expect(safeText('a\r\nb', true)).toBe('a\ufffd\nb');
    const clean = 'Wartung für Rack 7';
    expect(safeText(clean)).toBe(clean);
    // The global expression's state does not leak from one call into the next.
    expect(safeText('x\u001b')).toBe('x\ufffd');
    expect(safeText('y\u001b')).toBe('y\ufffd');
  });
});
