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

interface Accumulator {
  n: number;
  up: number;
  sum: Record<MetricName, number>;
  count: Record<MetricName, number>;
  max: Record<MetricName, number | null>;
}

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

  /**
   * Starts the sweep at `t` (epoch seconds): returns the rows of every bucket that ended before
   * it. Call before `add` for that sweep.
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
    return out;
  }

  /** Adds one machine's raw sample to the open buckets. */
  add(name: string, sample: Sample): void {
    for (const tier of AGGREGATE_TIERS) {
      const bucket = this.open.get(tier);
      if (bucket === undefined) continue;
      let acc = bucket.rows.get(name);
      if (acc === undefined) {
        acc = { n: 0, up: 0, sum: zeros(), count: zeros(), max: emptyMetricRecord() };
        bucket.rows.set(name, acc);
      }
      acc.n += sample.n;
      acc.up += sample.up * sample.n;
      for (const k of METRICS) {
        const v = sample.avg[k];
        if (v === null) continue;
        acc.sum[k] += v * sample.n;
        acc.count[k] += sample.n;
        const m = sample.max[k] ?? v;
        const held = acc.max[k];
        if (held === null || m > held) acc.max[k] = m;
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

function zeros(): Record<MetricName, number> {
  return { cpu: 0, mem: 0, load: 0, disk: 0, latency_ms: 0, bells: 0, gpu_util: 0, gpu_mem: 0 };
}

function finish(start: number, acc: Accumulator): Sample {
  const avg = emptyMetricRecord();
  for (const k of METRICS) avg[k] = acc.count[k] === 0 ? null : acc.sum[k] / acc.count[k];
  return { t: start, n: acc.n, up: acc.up / acc.n, avg, max: { ...acc.max } };
}
