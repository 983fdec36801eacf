import { describe, expect, it } from 'vitest';
import { mergeBatches } from './batch-merge.js';
import { METRICS, type RawSweep, type WriteBatch } from './history-store.js';
import { rawSample } from './tiers.js';

const M = METRICS.length;
const sweep = (t: number, names: string[]): RawSweep => ({
  t,
  names,
  up: Uint8Array.from(names.map(() => 1)),
  // Each row's cpu says which row it is: t + its index / 100.
  values: Float64Array.from(
    names.flatMap((_, i) => METRICS.map((_, k) => (k === 0 ? t + i / 100 : k))),
  ),
});
const batch = (over: Partial<WriteBatch>): WriteBatch => ({
  samples: [],
  events: [],
  forget: [],
  cutoffs: { raw: 0, m5: 0, h1: 0 },
  ...over,
});
const cpus = (b: WriteBatch): number[] =>
  (b.sweeps ?? []).flatMap((s) => s.names.map((_, i) => s.values[i * M] as number));

describe('merging two waiting write batches', () => {
  it('keeps both sweeps in order; a later forget takes the name out of the earlier sweep only', () => {
    const shed = { count: 0 };
    const merged = mergeBatches(
      batch({ sweeps: [sweep(10, ['a', 'b', 'c'])] }),
      batch({ sweeps: [sweep(20, ['a', 'c'])], forget: ['b'] }),
      1000,
      shed,
    );
    expect(merged.sweeps?.map((s) => [s.t, s.names])).toEqual([
      [10, ['a', 'c']],
      [20, ['a', 'c']],
    ]);
    // The rows kept are the right ones, values and flags with their names.
    expect(cpus(merged)).toEqual([10, 10.02, 20, 20.01]);
    expect(merged.forget).toEqual(['b']);
    expect(shed.count).toBe(0);
  });

  it('past the bound drops the oldest raw rows first, whole sweeps then the start of one, and counts them', () => {
    const shed = { count: 0 };
    const merged = mergeBatches(
      batch({ sweeps: [sweep(10, ['a', 'b']), sweep(20, ['a', 'b', 'c'])] }),
      batch({
        sweeps: [sweep(30, ['a', 'b', 'c'])],
        samples: [{ tier: 'm5', name: 'a', sample: rawSample(0, true, { ...emptyValues }) }],
      }),
      4,
      shed,
    );
    expect(shed.count).toBe(4);
    expect(merged.sweeps?.map((s) => [s.t, s.names])).toEqual([
      [20, ['c']],
      [30, ['a', 'b', 'c']],
    ]);
    expect(cpus(merged)).toEqual([20.02, 30, 30.01, 30.02]);
    // Aggregates are kept.
    expect(merged.samples.map((s) => s.tier)).toEqual(['m5']);
  });

  it('drops raw rows given as samples when the sweeps are not enough', () => {
    const shed = { count: 0 };
    const raw = (name: string) => ({
      tier: 'raw' as const,
      name,
      sample: rawSample(5, true, { ...emptyValues }),
    });
    const merged = mergeBatches(
      batch({ samples: [raw('x'), raw('y')], sweeps: [sweep(10, ['a'])] }),
      batch({}),
      1,
      shed,
    );
    expect(shed.count).toBe(2);
    expect(merged.sweeps).toEqual([]);
    expect(merged.samples.map((s) => s.name)).toEqual(['y']);
  });
});

const emptyValues = Object.fromEntries(METRICS.map((k) => [k, null])) as Record<
  (typeof METRICS)[number],
  null
>;
