import { describe, expect, it } from 'vitest';
import { METRICS } from './history-store.js';
import { plan, toSeries } from './query.js';
import { HISTORY_DEFAULTS, historySettings } from './settings.js';
import { Aggregator, mergeSamples, rawSample } from './tiers.js';
import { shareOf, upMsWithin, uptimeOf } from './uptime.js';

const v = (cpu: number | null) => ({
  cpu,
  mem: 0.5,
  load: 1,
  disk: 0.5,
  latency_ms: 10,
  bells: 0,
  gpu_util: null,
  gpu_mem: null,
  net_rx: null,
  net_tx: null,
  temp_max: null,
});

/** A sweep's row (RawSweep's layout) of these values. */
const row = (values: ReturnType<typeof v>) =>
  Float64Array.from(METRICS.map((k) => values[k] ?? Number.NaN));

describe('Aggregator', () => {
  it('hands out a 5-minute bucket (avg, max, share up) once a sweep falls past its end', () => {
    const agg = new Aggregator();
    const T = 1_800_000_000 - (1_800_000_000 % 3600);
    for (const [t, up, cpu] of [
      [T, true, 0.2],
      [T + 100, true, 0.6],
      [T + 200, false, null],
    ] as const) {
      expect(agg.advance(t)).toEqual([]);
      agg.addRow('a', up ? 1 : 0, row(v(cpu)), 0);
    }
    const out = agg.advance(T + 300);
    expect(out.map((r) => r.tier)).toEqual(['m5']);
    const s = out[0]?.sample;
    expect(s?.t).toBe(T);
    expect(s?.n).toBe(3);
    expect(s?.up).toBeCloseTo(2 / 3, 9);
    expect(s?.avg.cpu).toBeCloseTo(0.4, 9);
    expect(s?.max.cpu).toBe(0.6);
    // The hour bucket is still open; drain hands it out as it stands.
    expect(agg.drain().map((r) => [r.tier, r.sample.n])).toEqual([['h1', 3]]);
  });

  it('forgets a machine’s open buckets', () => {
    const agg = new Aggregator();
    agg.advance(0);
    agg.addRow('a', 1, row(v(0.1)), 0);
    agg.forget('a');
    expect(agg.advance(3600)).toEqual([]);
  });

  it('keeps each machine’s row its own, past the first rows and across forgotten machines', () => {
    const agg = new Aggregator();
    agg.advance(0);
    const names = Array.from({ length: 300 }, (_, i) => `m${i}`);
    // Two sweeps; every third machine forgotten between them, and 50 new ones added (in the
    // forgotten machines' rows, which must start empty).
    for (const [i, name] of names.entries()) agg.addRow(name, 1, row(v(i / 1000)), 0);
    for (const [i, name] of names.entries()) if (i % 3 === 0) agg.forget(name);
    const added = Array.from({ length: 50 }, (_, i) => `new${i}`);
    for (const [i, name] of names.entries())
      if (i % 3 !== 0) agg.addRow(name, i % 2, row(v(i / 1000 + 0.5)), 0);
    for (const name of added) agg.addRow(name, 0, row(v(null)), 0);
    const out = agg.advance(300).filter((r) => r.tier === 'm5');
    expect(out).toHaveLength(200 + 50);
    const by = new Map(out.map((r) => [r.name, r.sample]));
    for (const [i, name] of names.entries()) {
      const s = by.get(name);
      if (i % 3 === 0) {
        expect(s).toBeUndefined();
        continue;
      }
      expect(s?.n).toBe(2);
      expect(s?.up).toBe((1 + (i % 2)) / 2);
      expect(s?.avg.cpu).toBeCloseTo(i / 1000 + 0.25, 9);
      expect(s?.max.cpu).toBeCloseTo(i / 1000 + 0.5, 9);
    }
    for (const name of added) {
      const s = by.get(name);
      expect(s?.n).toBe(1);
      expect(s?.up).toBe(0);
      expect(s?.avg.cpu).toBeNull();
      expect(s?.max.cpu).toBeNull();
      expect(s?.avg.mem).toBe(0.5);
    }
  });

  it('merges two rows of one bucket by weight', () => {
    const a = { ...rawSample(0, true, v(0.2)), n: 3 };
    const b = rawSample(0, false, v(0.6));
    const m = mergeSamples(a, b);
    expect(m.n).toBe(4);
    expect(m.avg.cpu).toBeCloseTo(0.3, 9);
    expect(m.max.cpu).toBe(0.6);
    expect(m.up).toBeCloseTo(0.75, 9);
  });
});

describe('plan and toSeries', () => {
  const now = 10_000_000;
  it('picks the coarsest tier that still fills the points, within its retention', () => {
    expect(plan({ fromS: now - 3600, toS: now }, 300, HISTORY_DEFAULTS, now).tier).toBe('raw');
    expect(plan({ fromS: now - 86_400, toS: now }, 300, HISTORY_DEFAULTS, now).tier).toBe('raw');
    // As the route makes a 24 h window: floored, and a moment before the plan's `now`.
    const later = now + 0.4;
    expect(plan({ fromS: now - 86_400, toS: now }, 300, HISTORY_DEFAULTS, later).tier).toBe('raw');
    expect(plan({ fromS: now - 7 * 86_400, toS: now }, 300, HISTORY_DEFAULTS, now).tier).toBe('m5');
    expect(plan({ fromS: now - 30 * 86_400, toS: now }, 300, HISTORY_DEFAULTS, now).tier).toBe(
      'h1',
    );
    // An hour two days ago: raw is pruned by then, the 5-minute tier still has it.
    const old = plan(
      { fromS: now - 2 * 86_400, toS: now - 2 * 86_400 + 3600 },
      300,
      HISTORY_DEFAULTS,
      now,
    );
    expect(old).toEqual({ tier: 'm5', stepS: 300, count: 12 });
  });

  it('spans the whole window with at most `points` points, null where nothing was recorded', () => {
    const w = { fromS: 1000, toS: 2000 };
    const p = plan(w, 10, HISTORY_DEFAULTS, 2000);
    expect(p).toEqual({ tier: 'raw', stepS: 100, count: 10 });
    const s = toSeries(
      [
        rawSample(1010, true, v(0.2)),
        rawSample(1050, true, v(0.4)),
        rawSample(1950, false, v(null)),
      ],
      w,
      p,
    );
    expect(s.t).toEqual([1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900]);
    expect(s.avg.cpu[0]).toBeCloseTo(0.3, 9);
    expect(s.max.cpu[0]).toBe(0.4);
    expect(s.avg.cpu.slice(1)).toEqual(new Array(9).fill(null));
    expect(s.up).toEqual([1, null, null, null, null, null, null, null, null, 0]);
  });
});

describe('uptime', () => {
  const H = 3_600_000;
  const now = 100 * H;
  const events = [
    { at: now - 10 * H, state: 'up' as const, previous: null, reason: null },
    { at: now - 4 * H, state: 'down' as const, previous: 'up' as const, reason: 'x' },
    { at: now - 3 * H, state: 'up' as const, previous: 'down' as const, reason: null },
  ];
  it('adds up the time up within a window exactly, the state before the window included', () => {
    expect(upMsWithin(events, now - 24 * H, now)).toBe(9 * H);
    // A window that starts while it was down.
    expect(upMsWithin(events, now - 3.5 * H, now)).toBe(3 * H);
    expect(upMsWithin(events, now - 6 * H, now)).toBe(5 * H);
  });
  it('is a share counted from first seen; null before it', () => {
    const totals = {
      name: 'a',
      firstSeen: now - 10 * H,
      upMs: { '24h': 9 * H, '7d': 9 * H, '30d': 9 * H },
    };
    expect(uptimeOf(totals, now)).toEqual({ '24h': 0.9, '7d': 0.9, '30d': 0.9 });
    expect(shareOf(0, now + 1, now - H, now)).toBeNull();
    expect(shareOf(H / 2, now - 2 * H, now - H, now)).toBe(0.5);
  });
});

describe('history settings', () => {
  it('reads durations and turns history off', () => {
    expect(historySettings(false)).toBeNull();
    expect(historySettings(undefined)).toEqual(HISTORY_DEFAULTS);
    expect(historySettings({ raw: '6h', '1h': 3600 })).toEqual({
      ...HISTORY_DEFAULTS,
      raw: 6 * 3_600_000,
      h1: 3_600_000,
    });
  });
});
