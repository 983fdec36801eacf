import {
  emptyMetricRecord,
  METRICS,
  type MetricName,
  type Sample,
  TIER_STEP_S,
  type TierName,
} from '../store/history-store.js';

/** The aggregate tiers, built in memory as sweeps arrive. */
export const AGGREGATE_TIERS = ['m5', 'h1'] as const satisfies readonly TierName[];
type AggregateTier = (typeof AGGREGATE_TIERS)[number];

const M = METRICS.length;
/**
 * One open bucket of one machine, as numbers in place: n (its samples), up (those up), then per
 * metric the sum of its values, the samples with a value, and the max (NaN: none). A sweep of 15,000
 * machines folds into these without a new object (records of 8 named numbers, read by key,
 * took 25–35 ms a sweep at 15,000 machines; issue 26).
 */
type Accumulator = Float64Array;
const N = 0;
const UP = 1;
const SUM = 2;
const COUNT = SUM + M;
const MAX = COUNT + M;
const SIZE = MAX + M;

/** One sweep's sample of one machine (raw tier: n = 1, max = avg). */
export function rawSample(
  t: number,
  up: boolean,
  values: Record<MetricName, number | null>,
): Sample {
  return { t, n: 1, up: up ? 1 : 0, avg: values, max: { ...values } };
}

/**
 * Folds raw samples into 5-minute and hourly buckets (avg and max of each metric, share of
 * samples up). A bucket is handed out once a sweep falls past its end: that is the only time
 * aggregates are written, so a bucket costs one row per machine, written once.
 */
export class Aggregator {
  private readonly open = new Map<
    AggregateTier,
    { start: number; rows: Map<string, Accumulator> }
  >();
  /** The open buckets (as in `open`), for the loop of `addRow`. */
  private buckets: { start: number; rows: Map<string, Accumulator> }[] = [];

  /**
   * Starts the sweep at `t` (epoch seconds): returns the rows of every bucket that ended before
   * it. Call before `addRow` for that sweep.
   */
  advance(t: number): { tier: TierName; name: string; sample: Sample }[] {
    const out: { tier: TierName; name: string; sample: Sample }[] = [];
    for (const tier of AGGREGATE_TIERS) {
      const step = TIER_STEP_S[tier];
      const start = Math.floor(t / step) * step;
      const current = this.open.get(tier);
      if (current !== undefined && current.start !== start) {
        for (const [name, acc] of current.rows)
          out.push({ tier, name, sample: finish(current.start, acc) });
        this.open.delete(tier);
      }
      if (!this.open.has(tier)) this.open.set(tier, { start, rows: new Map() });
    }
    this.buckets = [...this.open.values()];
    return out;
  }

  /**
   * Adds one machine's row of a sweep (RawSweep: `values` from `at` on, METRICS order, NaN for
   * null; up 1 or 0) to its open buckets.
   */
  addRow(name: string, up: number, values: Float64Array, at: number): void {
    for (const bucket of this.buckets) {
      let acc = bucket.rows.get(name);
      if (acc === undefined) {
        acc = new Float64Array(SIZE).fill(Number.NaN, MAX);
        bucket.rows.set(name, acc);
      }
      acc[N] = (acc[N] as number) + 1;
      acc[UP] = (acc[UP] as number) + up;
      for (let i = 0; i < M; i += 1) {
        const v = values[at + i] as number;
        if (Number.isNaN(v)) continue;
        acc[SUM + i] = (acc[SUM + i] as number) + v;
        acc[COUNT + i] = (acc[COUNT + i] as number) + 1;
        const held = acc[MAX + i] as number;
        if (Number.isNaN(held) || v > held) acc[MAX + i] = v;
      }
    }
  }

  /** Drops a forgotten machine's open buckets. */
  forget(name: string): void {
    for (const bucket of this.open.values()) bucket.rows.delete(name);
  }

  /** The open buckets as they stand (written at shutdown; a restart merges into them). */
  drain(): { tier: TierName; name: string; sample: Sample }[] {
    const out: { tier: TierName; name: string; sample: Sample }[] = [];
    for (const [tier, bucket] of this.open) {
      for (const [name, acc] of bucket.rows)
        out.push({ tier, name, sample: finish(bucket.start, acc) });
    }
    this.open.clear();
    this.buckets = [];
    return out;
  }
}

/**
 * Merges two rows of the same bucket (a bucket written at shutdown and continued after a
 * restart): averages weighted by their sample counts, the larger max.
 */
export function mergeSamples(a: Sample, b: Sample): Sample {
  const n = a.n + b.n;
  const avg = emptyMetricRecord();
  const max = emptyMetricRecord();
  for (const k of METRICS) {
    const x = a.avg[k];
    const y = b.avg[k];
    avg[k] = x === null ? y : y === null ? x : (x * a.n + y * b.n) / n;
    const p = a.max[k];
    const q = b.max[k];
    max[k] = p === null ? q : q === null ? p : Math.max(p, q);
  }
  return { t: a.t, n, up: (a.up * a.n + b.up * b.n) / n, avg, max };
}

function finish(start: number, acc: Accumulator): Sample {
  const avg = emptyMetricRecord();
  const max = emptyMetricRecord();
  for (let i = 0; i < M; i += 1) {
    const k = METRICS[i] as MetricName;
    const count = acc[COUNT + i] as number;
    avg[k] = count === 0 ? null : (acc[SUM + i] as number) / count;
    const m = acc[MAX + i] as number;
    max[k] = Number.isNaN(m) ? null : m;
  }
  const n = acc[N] as number;
  return { t: start, n, up: (acc[UP] as number) / n, avg, max };
}
