import { describe, expect, it } from 'vitest';
import {
  type HistoryStore,
  METRICS,
  type Sample,
  type StateEvent,
  type WriteBatch,
} from '../history/history-store.js';
import { rawSample } from '../history/tiers.js';
import { upMsWithin } from '../history/uptime.js';

/**
 * The contract every HistoryStore passes (Hono's common.case pattern): each implementation's
 * test file calls this with a factory of fresh, empty stores.
 */
export function storeContract(kind: string, open: () => Promise<HistoryStore>): void {
  const T0 = 1_700_000_000; // epoch seconds, a multiple of 3600 minus nothing in particular
  const keepAll = { raw: 0, m5: 0, h1: 0 };
  const batch = (over: Partial<WriteBatch>): WriteBatch => ({
    samples: [],
    events: [],
    forget: [],
    cutoffs: keepAll,
    ...over,
  });
  const values = (cpu: number | null, load = 1.5) => ({
    cpu,
    mem: 0.5,
    load,
    disk: 0.75,
    latency_ms: 12.5,
    bells: 2,
    gpu_util: 0.875,
    gpu_mem: 0.25,
    net_rx: 125_000,
    net_tx: 2500,
    temp_max: 47.5,
  });
  const agg = (t: number, n: number, cpu: number, cpuMax: number): Sample => ({
    t,
    n,
    up: 0.5,
    avg: { ...values(cpu), bells: 1, gpu_util: cpu, net_rx: cpu * 1e6, temp_max: cpu * 100 },
    max: {
      ...values(cpuMax),
      bells: 3,
      gpu_util: cpuMax,
      net_rx: cpuMax * 1e6,
      temp_max: cpuMax * 100,
    },
  });

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

    it('lists state changes most recent first, up to the limit, and knows the name by them', async () => {
      const store = await open();
      const at = T0 * 1000;
      await store.write(
        batch({
          events: [
            { name: 'alpha', at, state: 'up', previous: null, reason: null },
            { name: 'alpha', at: at + 5000, state: 'down', previous: 'up', reason: 'timed out' },
            { name: 'alpha', at: at + 9000, state: 'up', previous: 'down', reason: null },
          ],
        }),
      );
      expect(await store.has('alpha')).toBe(true);
      expect(await store.has('ALPHA')).toBe(false);
      expect(await store.events('alpha', 2)).toEqual([
        { at: at + 9000, state: 'up', previous: 'down', reason: null },
        { at: at + 5000, state: 'down', previous: 'up', reason: 'timed out' },
      ]);
      await store.close();
    });

    it('totals the time up in each uptime window exactly, from state changes, since first seen', async () => {
      const store = await open();
      const now = T0 * 1000;
      const H = 3_600_000;
      const D = 24 * H;
      await store.write(
        batch({
          events: [
            { name: 'alpha', at: now - 10 * D, state: 'up', previous: null, reason: null },
            { name: 'alpha', at: now - 2 * D, state: 'down', previous: 'up', reason: 'x' },
            { name: 'alpha', at: now - 2 * D + 3 * H, state: 'up', previous: 'down', reason: null },
            { name: 'alpha', at: now - 2 * H, state: 'down', previous: 'up', reason: 'y' },
            { name: 'alpha', at: now - H, state: 'up', previous: 'down', reason: null },
            { name: 'beta', at: now - 40 * D, state: 'down', previous: null, reason: 'refused' },
            { name: 'beta', at: now - 5 * H, state: 'up', previous: 'down', reason: null },
          ],
        }),
      );
      expect(await store.uptimeTotals(now)).toEqual([
        {
          name: 'alpha',
          firstSeen: now - 10 * D,
          upMs: { '24h': 23 * H, '7d': 7 * D - 4 * H, '30d': 10 * D - 4 * H },
        },
        {
          name: 'beta',
          firstSeen: now - 40 * D,
          upMs: { '24h': 5 * H, '7d': 5 * H, '30d': 5 * H },
        },
      ]);
      await store.close();
    });

    it('keeps uptime exact as changes are written and time passes between reads', async () => {
      const store = await open();
      const H = 3_600_000;
      const D = 24 * H;
      const t0 = T0 * 1000;
      const written: ({ name: string } & StateEvent)[] = [];
      const write = async (name: string, at: number, state: 'up' | 'down') => {
        const e = { name, at, state, previous: null, reason: null };
        written.push(e);
        await store.write(batch({ events: [e] }));
      };
      const expected = (now: number) =>
        ['alpha', 'beta'].map((name) => {
          const mine = written.filter((e) => e.name === name).sort((a, b) => a.at - b.at);
          const within = (w: number) => upMsWithin(mine, now - w, now);
          return {
            name,
            firstSeen: mine[0]?.at,
            upMs: { '24h': within(D), '7d': within(7 * D), '30d': within(30 * D) },
          };
        });
      await write('alpha', t0, 'up');
      await write('beta', t0 + H, 'down');
      expect(await store.uptimeTotals(t0 + 2 * H)).toEqual(expected(t0 + 2 * H));
      await write('alpha', t0 + 3 * H, 'down');
      await write('beta', t0 + 3 * H, 'up');
      // Each read later than the one before: window starts pass the changes one after another.
      for (const now of [4 * H, 25 * H, 26 * H, 3 * D, 8 * D, 8 * D + 2 * H, 31 * D, 40 * D]) {
        expect(await store.uptimeTotals(t0 + now)).toEqual(expected(t0 + now));
        if (now === 8 * D) await write('alpha', t0 + now - 1000, 'up');
      }
      await store.close();
    });

    it('drops a machine once retention has emptied it (no rows left, no state change since)', async () => {
      const store = await open();
      const at = T0 * 1000;
      await store.write(
        batch({
          samples: [
            { tier: 'raw', name: 'alpha', sample: rawSample(T0, true, values(0.5)) },
            { tier: 'h1', name: 'beta', sample: agg(T0 + 3600, 1, 0.2, 0.2) },
          ],
          events: [
            { name: 'alpha', at, state: 'up', previous: null, reason: null },
            { name: 'beta', at, state: 'up', previous: null, reason: null },
            { name: 'gamma', at: at + 5000, state: 'down', previous: null, reason: 'r' },
          ],
        }),
      );
      // Past every cutoff for alpha; beta keeps an hourly row; gamma's change is within retention.
      await store.write(batch({ cutoffs: { raw: T0 + 10, m5: T0 + 10, h1: T0 + 1 } }));
      expect(await store.has('alpha')).toBe(false);
      expect(await store.events('alpha', 10)).toEqual([]);
      expect(await store.has('beta')).toBe(true);
      expect(await store.has('gamma')).toBe(true);
      expect((await store.uptimeTotals(at + 10_000)).map((u) => u.name)).toEqual(['beta', 'gamma']);
      await store.close();
    });

    it('forgets a machine at once; the same name seen again starts a new history', async () => {
      const store = await open();
      await store.write(
        batch({
          samples: [{ tier: 'raw', name: 'alpha', sample: rawSample(T0, true, values(0.5)) }],
          events: [{ name: 'alpha', at: T0 * 1000, state: 'up', previous: null, reason: null }],
        }),
      );
      await store.write(batch({ forget: ['alpha'] }));
      expect(await store.has('alpha')).toBe(false);
      expect(await store.samples('alpha', 'raw', 0, T0 * 2)).toEqual([]);
      expect(await store.events('alpha', 10)).toEqual([]);
      expect(await store.uptimeTotals(T0 * 1000)).toEqual([]);
      await store.write(
        batch({
          events: [
            { name: 'alpha', at: T0 * 1000 + 60_000, state: 'down', previous: null, reason: 'r' },
          ],
        }),
      );
      expect(await store.samples('alpha', 'raw', 0, T0 * 2)).toEqual([]);
      expect((await store.uptimeTotals(T0 * 1000 + 120_000))[0]?.firstSeen).toBe(
        T0 * 1000 + 60_000,
      );
      await store.close();
    });

    it('prunes the rows older than each tier cutoff', async () => {
      const store = await open();
      const samples: WriteBatch['samples'] = [];
      for (let i = 0; i < 20; i += 1) {
        samples.push({
          tier: 'raw',
          name: 'alpha',
          sample: rawSample(T0 + i * 5, true, values(0.1)),
        });
      }
      samples.push({ tier: 'm5', name: 'alpha', sample: agg(T0, 1, 0.2, 0.2) });
      samples.push({ tier: 'm5', name: 'alpha', sample: agg(T0 + 300, 1, 0.2, 0.2) });
      await store.write(batch({ samples }));
      await store.write(batch({ cutoffs: { raw: T0 + 50, m5: T0 + 300, h1: 0 } }));
      const raw = await store.samples('alpha', 'raw', 0, T0 * 2);
      expect(raw.map((r) => r.t)).toEqual(Array.from({ length: 10 }, (_, i) => T0 + 50 + i * 5));
      expect((await store.samples('alpha', 'm5', 0, T0 * 2)).map((r) => r.t)).toEqual([T0 + 300]);
      await store.close();
    });
  });
}
