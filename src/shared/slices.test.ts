import { describe, expect, it } from 'vitest';
import { inSlices } from './slices.js';

describe('inSlices', () => {
  it('visits every item once, in order, and lets other work run between slices', async () => {
    const items = Array.from({ length: 5000 }, (_, i) => i);
    const seen: number[] = [];
    let between = 0;
    const other = setInterval(() => {
      between += 1;
    }, 0);
    // Each item costs ~20 µs: 100 ms in all, far more than one slice of 1 ms.
    await inSlices(
      items,
      (item, index) => {
        expect(index).toBe(item);
        seen.push(item);
        const until = performance.now() + 0.02;
        while (performance.now() < until);
      },
      1,
    );
    clearInterval(other);
    expect(seen).toEqual(items);
    expect(between).toBeGreaterThan(0);
  });

  it('does nothing for no items', async () => {
    let calls = 0;
    await inSlices([], () => {
      calls += 1;
    });
    expect(calls).toBe(0);
  });
});
