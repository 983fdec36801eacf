/** The history contract's rows: samples written raw, as columns and as aggregates, and read back. */
import { describe, expect, it } from 'vitest';
import { type HistoryStore, METRICS, type Sample } from '../history/history-store.js';
import { rawSample } from '../history/tiers.js';
import { agg, batch, T0, values } from './history-contract-kit.case.js';

/**
 * The contract every HistoryStore passes (Hono's common.case pattern): each implementation's
 * test file calls this and storeChangesContract with a factory of fresh, empty stores.
 */
export function storeRowsContract(kind: string, open: () => Promise<HistoryStore>): void {
  describe(`HistoryStore contract: ${kind}`, () => {
    it('is empty at first and knows no name', async () => {
      const store = await open();
      expect(await store.has('alpha')).toBe(false);
      expect(await store.samples('alpha', 'raw', 0, T0 * 2)).toEqual([]);
      expect(await store.events('alpha', 10)).toEqual([]);
      expect(await store.uptimeTotals(T0 * 1000)).toEqual([]);
      await store.close();
    });

    it('answers raw rows of one machine in [from, to), oldest first, values as written', async () => {
      const store = await open();
      await store.write(
        batch({
          samples: [
            { tier: 'raw', name: 'alpha', sample: rawSample(T0 + 10, true, values(0.25)) },
            { tier: 'raw', name: 'beta', sample: rawSample(T0 + 10, false, values(null)) },
            { tier: 'raw', name: 'alpha', sample: rawSample(T0, true, values(0.125, 0.5)) },
            { tier: 'raw', name: 'alpha', sample: rawSample(T0 + 20, false, values(null)) },
          ],
          events: [{ name: 'alpha', at: T0 * 1000, state: 'up', previous: null, reason: null }],
        }),
      );
      const rows = await store.samples('alpha', 'raw', T0, T0 + 20);
      expect(rows.map((r) => [r.t, r.up, r.avg.cpu, r.avg.load])).toEqual([
        [T0, 1, 0.125, 0.5],
        [T0 + 10, 1, 0.25, 1.5],
      ]);
      expect(rows[0]?.avg).toEqual(values(0.125, 0.5));
      expect(rows[0]?.max).toEqual(values(0.125, 0.5));
      // A machine without GPUs: its GPU columns are null, as written.
      const noGpu = { ...values(0.5), gpu_util: null, gpu_mem: null };
      await store.write(
        batch({ samples: [{ tier: 'raw', name: 'gamma', sample: rawSample(T0, true, noGpu) }] }),
      );
      expect((await store.samples('gamma', 'raw', T0, T0 + 1))[0]?.avg).toEqual(noGpu);
      // Nor network rates nor temperatures (an older agent, no hwmon): null, as written.
      const bare = { ...values(0.5), net_rx: null, net_tx: null, temp_max: null };
      await store.write(
        batch({ samples: [{ tier: 'raw', name: 'delta', sample: rawSample(T0, true, bare) }] }),
      );
      expect((await store.samples('delta', 'raw', T0, T0 + 1))[0]?.max).toEqual(bare);
      const down = await store.samples('beta', 'raw', T0, T0 + 100);
      expect(down.map((r) => [r.up, r.avg.cpu])).toEqual([[0, null]]);
      await store.close();
    });

    it('writes a sweep given as columns exactly as the same rows given as samples', async () => {
      const store = await open();
      const rows = [
        { name: 'alpha', up: true, v: values(0.25) },
        {
          name: 'beta',
          up: false,
          v: { ...values(null), mem: null, gpu_util: null, net_tx: null, temp_max: null },
        },
        { name: 'gamma', up: true, v: { ...values(0), load: null } },
      ];
      const columns = Float64Array.from(
        rows.flatMap((r) => METRICS.map((k) => r.v[k] ?? Number.NaN)),
      );
      await store.write(
        batch({
          samples: [{ tier: 'raw', name: 'alpha', sample: rawSample(T0, true, values(0.5)) }],
          sweeps: [
            {
              t: T0 + 10,
              names: rows.map((r) => r.name),
              up: Uint8Array.from(rows.map((r) => (r.up ? 1 : 0))),
              values: columns,
            },
          ],
        }),
      );
      for (const r of rows) {
        const got = await store.samples(r.name, 'raw', T0 + 10, T0 + 11);
        expect(got).toEqual([rawSample(T0 + 10, r.up, r.v)]);
      }
      expect((await store.samples('alpha', 'raw', T0, T0 + 20)).map((r) => r.avg.cpu)).toEqual([
        0.5, 0.25,
      ]);
      await store.close();
    });

    it('keeps avg and max per aggregate bucket and merges a bucket written twice by weight', async () => {
      const store = await open();
      await store.write(
        batch({ samples: [{ tier: 'm5', name: 'alpha', sample: agg(T0, 3, 0.2, 0.4) }] }),
      );
      await store.write(
        batch({ samples: [{ tier: 'm5', name: 'alpha', sample: agg(T0, 1, 0.6, 0.9) }] }),
      );
      await store.write(
        batch({ samples: [{ tier: 'h1', name: 'alpha', sample: agg(T0, 2, 0.3, 0.3) }] }),
      );
      const [m5] = await store.samples('alpha', 'm5', T0, T0 + 300);
      expect(m5?.n).toBe(4);
      expect(m5?.avg.cpu).toBeCloseTo(0.3, 3);
      expect(m5?.max.cpu).toBeCloseTo(0.9, 3);
      expect(m5?.avg.bells).toBeCloseTo(1, 2);
      expect(m5?.max.bells).toBe(3);
      expect(m5?.avg.gpu_util).toBeCloseTo(0.3, 3);
      expect(m5?.max.gpu_util).toBeCloseTo(0.9, 3);
      expect(m5?.avg.gpu_mem).toBeCloseTo(0.25, 3);
      expect(m5?.avg.net_rx).toBeCloseTo(300_000, 0);
      expect(m5?.max.net_rx).toBeCloseTo(900_000, 0);
      expect(m5?.avg.net_tx).toBeCloseTo(2500, 0);
      expect(m5?.avg.temp_max).toBeCloseTo(30, 1);
      expect(m5?.max.temp_max).toBeCloseTo(90, 1);
      expect(m5?.up).toBeCloseTo(0.5, 3);
      const h1 = await store.samples('alpha', 'h1', T0, T0 + 3600);
      expect(h1.map((r) => [r.n, r.avg.cpu])).toEqual([[2, 0.3]]);
      expect(await store.samples('alpha', 'raw', 0, T0 * 2)).toEqual([]);
      await store.close();
    });

    it('answers values at the stored precision, rounded and merged alike by every engine', async () => {
      const store = await open();
      // Scaled integers (scaled-values.ts): 1e-4 of a share, 0.01 of load and bells, 0.1 ms,
      // 0.1 °C, whole bytes a second; rounded half up.
      const odd = {
        ...values(0.123456, 1.234),
        latency_ms: 12.34,
        bells: 0.125,
        gpu_mem: 1 / 3,
        net_rx: 1000.5,
        temp_max: 47.25,
      };
      await store.write(
        batch({ samples: [{ tier: 'raw', name: 'alpha', sample: rawSample(T0, true, odd) }] }),
      );
      const [raw] = await store.samples('alpha', 'raw', T0, T0 + 1);
      expect(raw?.avg).toEqual({
        ...odd,
        cpu: 0.1235,
        load: 1.23,
        latency_ms: 12.3,
        bells: 0.13,
        gpu_mem: 0.3333,
        net_rx: 1001,
        temp_max: 47.3,
      });
      // A bucket written twice merges its stored averages by weight, truncated: (1000 + 2 × 2000) / 3.
      const one = (n: number, cpu: number, up: number): Sample => ({
        ...agg(T0, n, cpu, cpu),
        up,
      });
      await store.write(
        batch({ samples: [{ tier: 'm5', name: 'alpha', sample: one(1, 0.1, 1) }] }),
      );
      await store.write(
        batch({
          samples: [
            { tier: 'm5', name: 'alpha', sample: one(1, 0.2, 0) },
            { tier: 'm5', name: 'alpha', sample: one(1, 0.2, 0) },
          ],
        }),
      );
      const [m5] = await store.samples('alpha', 'm5', T0, T0 + 300);
      expect([m5?.n, m5?.avg.cpu, m5?.max.cpu, m5?.up]).toEqual([3, 0.1666, 0.2, 0.3333]);
      await store.close();
    });

    it('folds rows into buckets of a step: weighted averages, the max of the maxima, share up', async () => {
      const store = await open();
      await store.write(
        batch({
          samples: [
            { tier: 'raw', name: 'alpha', sample: rawSample(T0 + 1, true, values(0.25)) },
            { tier: 'raw', name: 'alpha', sample: rawSample(T0 + 6, true, values(0.75, 2.5)) },
            { tier: 'raw', name: 'alpha', sample: rawSample(T0 + 11, false, values(null)) },
            { tier: 'raw', name: 'alpha', sample: rawSample(T0 + 21, true, values(0.5)) },
            { tier: 'h1', name: 'alpha', sample: agg(T0, 3, 0.2, 0.4) },
            { tier: 'h1', name: 'alpha', sample: agg(T0 + 3600, 1, 0.6, 0.9) },
          ],
        }),
      );
      const raw = await store.samples('alpha', 'raw', T0, T0 + 30, 20);
      expect(raw.map((r) => [r.t, r.n])).toEqual([
        [T0, 3],
        [T0 + 20, 1],
      ]);
      expect(raw[0]?.up).toBeCloseTo(2 / 3, 4);
      expect(raw[0]?.avg.cpu).toBeCloseTo(0.5, 4);
      expect(raw[0]?.max.cpu).toBeCloseTo(0.75, 4);
      expect(raw[0]?.max.load).toBeCloseTo(2.5, 4);
      const h1 = await store.samples('alpha', 'h1', T0, T0 + 7200, 7200);
      expect(h1.map((r) => [r.t, r.n])).toEqual([[T0, 4]]);
      expect(h1[0]?.avg.cpu).toBeCloseTo(0.3, 3);
      expect(h1[0]?.max.cpu).toBeCloseTo(0.9, 3);
      expect(h1[0]?.up).toBeCloseTo(0.5, 3);
      await store.close();
    });
  });
}
