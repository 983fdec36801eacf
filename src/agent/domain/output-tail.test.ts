import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputTail } from './output-tail.js';

describe('OutputTail', () => {
  it('keeps everything below the limit', () => {
    const tail = new OutputTail(10);
    tail.write(Buffer.from('abc'));
    tail.write(Buffer.from('def'));
    expect(tail.text()).toBe('abcdef');
    expect(tail.truncated).toBe(false);
  });

  it('keeps the last bytes of whatever was written', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary-ascii', maxLength: 50 })),
        fc.integer({ min: 1, max: 64 }),
        (parts, limit) => {
          const tail = new OutputTail(limit);
          for (const part of parts) tail.write(Buffer.from(part, 'latin1'));
          const all = Buffer.from(parts.join(''), 'latin1');
          expect(Buffer.from(tail.text(), 'utf8').length).toBeLessThanOrEqual(limit);
          expect(tail.truncated).toBe(all.length > limit);
          if (all.every((b) => b < 0x80)) {
            expect(tail.text()).toBe(
              all.subarray(Math.max(0, all.length - limit)).toString('utf8'),
            );
          }
        },
      ),
    );
  });

  it('drops a character cut in two at the start', () => {
    const tail = new OutputTail(4);
    tail.write(Buffer.from('xé€', 'utf8')); // 1 + 2 + 3 bytes: the limit cuts into é
    expect(tail.text()).toBe('€');
  });

  it('keeps 4 KiB by default', () => {
    const tail = new OutputTail();
    tail.write(Buffer.from('a'.repeat(10_000)));
    tail.write(Buffer.from('END'));
    expect(tail.text()).toHaveLength(4096);
    expect(tail.text().endsWith('END')).toBe(true);
  });
});
