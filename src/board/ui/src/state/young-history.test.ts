import { describe, expect, it } from 'vitest';
import { CHARTED, type Charted, type HistoryData } from '../api/history.js';
import { fromFirstSample, rangeForData } from './young-history.js';

/** An answer of `n` points `step` apart ending now, recorded from point `from` on. */
function answer(n: number, step: number, from: number): HistoryData {
  const t = Array.from({ length: n }, (_, i) => 1_700_000_000 + i * step);
  const column = () => t.map((_, i) => (i < from ? null : 0.5));
  const avg = {} as Record<Charted, (number | null)[]>;
  const max = {} as Record<Charted, (number | null)[]>;
  for (const k of CHARTED) {
    avg[k] = column();
    max[k] = column();
  }
  return { stepS: step, t, up: t.map((_, i) => (i < from ? null : 1)), avg, max };
}

describe('a young machine’s history', () => {
  it('starts at the first sample when the window began long before it', () => {
    const data = answer(300, 12, 280);
    const { data: cut, since } = fromFirstSample(data);
    expect(since).toBe((data.t[280] ?? 0) * 1000);
    expect(cut.t).toEqual(data.t.slice(280));
    expect(cut.up.every((u) => u === 1)).toBe(true);
    for (const k of CHARTED) expect(cut.avg[k]).toHaveLength(20);
  });

  it('is left whole when the machine is older than the window, or only its first point is empty', () => {
    expect(fromFirstSample(answer(300, 12, 0)).since).toBeNull();
    expect(fromFirstSample(answer(300, 12, 1)).since).toBeNull();
    const empty = answer(300, 12, 300);
    expect(fromFirstSample(empty).data).toBe(empty);
  });

  it('opens at the smallest range that holds everything a young machine has', () => {
    // 24 h of 288 s points, recorded for the last 20 points (~1.6 h): 6 h holds it.
    expect(rangeForData(answer(300, 288, 280))).toBe('6h');
    expect(rangeForData(answer(300, 288, 0))).toBeNull();
  });
});
