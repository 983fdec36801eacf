import { describe, expect, it } from 'vitest';
import {
  batchSamples,
  emptyMetricRecord,
  METRICS,
  type WriteBatch,
} from '../../history/history-store.js';
import { rawSample } from '../../history/tiers.js';
import { toWire, wireBatch } from './batch-wire.js';

describe('a write batch on its way to the writer thread', () => {
  it('comes out as the same rows: samples, then each sweep’s, names with any character', async () => {
    const values = { ...emptyMetricRecord(), cpu: 0.25, bells: 2 };
    const names = ['a', 'quote"back\\slash', 'line\nbreak', 'ünïcode'];
    const batch: WriteBatch = {
      samples: [
        { tier: 'm5', name: 'agg', sample: { ...rawSample(300, true, values), n: 30, up: 0.5 } },
        { tier: 'raw', name: 'one', sample: rawSample(10, false, emptyMetricRecord()) },
      ],
      sweeps: [
        {
          t: 20,
          names,
          up: Uint8Array.from([1, 0, 1, 1]),
          values: Float64Array.from(
            names.flatMap((_, i) => METRICS.map((_, k) => (k === 2 ? Number.NaN : i + k / 10))),
          ),
        },
        { t: 30, names: ['a'], up: Uint8Array.from([1]), values: new Float64Array(METRICS.length) },
      ],
      events: [{ name: 'a', at: 1, state: 'up', previous: null, reason: null }],
      forget: ['gone'],
      cutoffs: { raw: 1, m5: 2, h1: 3 },
    };
    const wire = await toWire(batch);
    // Through the thread boundary as the writer posts it.
    const crossed = structuredClone(wire, { transfer: [wire.numbers.buffer as ArrayBuffer] });
    const back = wireBatch(crossed);
    // Each row is valid until the next is asked for (the same object, filled again).
    const rows = [];
    for (const row of back.rows) rows.push(structuredClone(row));
    expect(rows).toEqual(batchSamples(batch));
    expect(rows).toHaveLength(2 + 4 + 1);
    expect(rows[3]?.sample.avg.load).toBeNull();
    expect(rows[3]?.name).toBe('quote"back\\slash');
    expect(back.events).toEqual(batch.events);
    expect(back.forget).toEqual(['gone']);
    expect(back.cutoffs).toEqual(batch.cutoffs);
  });
});
