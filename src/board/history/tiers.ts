import {
  emptyMetricRecord,
  METRICS,
  type MetricName,
  type Sample,
  TIER_STEP_S,
  type TierName,
} from './history-store.js';

/** The aggregate tiers, built in memory as sweeps arrive. */
export const AGGREGATE_TIERS = ['m5', 'h1'] as const satisfies readonly TierName[];
type AggregateTier = (typeof AGGREGATE_TIERS)[number];

const M = METRICS.length;
/**
 * One open bucket of one machine, as numbers in place: n (its samples), up (those up), then per
 * metric the sum of its values, the samples with a value, and the max (NaN: none). A sweep of 15,000
 * machines folds into these without a new object (records of 8 named numbers, read by key,
 * took 25–35 ms a sweep at 15,000 machines). The rows of one bucket are one array
 * (`Bucket`), not an array each: at 15,000 machines, 30,000 small typed arrays (two tiers),
 * each with its buffer and its memory block, were 4.9 MB more of the board's heap and 90,000
 * more objects for each mark-compact to mark.
 */
const N = 0;
const UP = 1;
const SUM = 2;
const COUNT = SUM + M;
const MAX = COUNT + M;
const SIZE = MAX + M;

/** The open bucket of one tier: each machine's row (at `rows.get(name)` × SIZE in `data`). */
class Bucket {
  private readonly rows = new Map<string, number>();
  data = new Float64Array(0);
  /** Rows taken so far, the forgotten machines' included. */
  private used = 0;
  /** Rows of forgotten machines, taken again first. */
  private readonly unused: number[] = [];

  constructor(readonly start: number) {}

  /** The offset of the machine's row in `data`, a new empty row if it had none. */
  row(name: string): number {
    const index = this.rows.get(name);
    if (index !== undefined) return index * SIZE;
    const taken = this.unused.pop() ?? this.used++;
    const at = taken * SIZE;
    if (at + SIZE > this.data.length) {
      const grown = new Float64Array(Math.max(64 * SIZE, 2 * this.data.length));
      grown.set(this.data);
      this.data = grown;
    }
    this.data.fill(0, at, at + MAX);
    this.data.fill(Number.NaN, at + MAX, at + SIZE);
    this.rows.set(name, taken);
    return at;
  }

  /** Drops the machine's row; its room serves the next machine. */
  forget(name: string): void {
    const index = this.rows.get(name);
    if (index === undefined) return;
    this.rows.delete(name);
    this.unused.push(index);
  }

  /** Every row, finished, by machine. */
  *finished(): Generator<[string, Sample]> {
    for (const [name, index] of this.rows)
      yield [name, finish(this.start, this.data, index * SIZE)];
  }
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
  private readonly open = new Map<AggregateTier, Bucket>();
  /** The open buckets (as in `open`), for the loop of `addRow`. */
  private buckets: Bucket[] = [];

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
        for (const [name, sample] of current.finished()) out.push({ tier, name, sample });
        this.open.delete(tier);
      }
      if (!this.open.has(tier)) this.open.set(tier, new Bucket(start));
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
      const r = bucket.row(name);
      const acc = bucket.data;
      acc[r + N] = (acc[r + N] as number) + 1;
      acc[r + UP] = (acc[r + UP] as number) + up;
      for (let i = 0; i < M; i += 1) {
        const v = values[at + i] as number;
        if (Number.isNaN(v)) continue;
        acc[r + SUM + i] = (acc[r + SUM + i] as number) + v;
        acc[r + COUNT + i] = (acc[r + COUNT + i] as number) + 1;
        const held = acc[r + MAX + i] as number;
        if (Number.isNaN(held) || v > held) acc[r + MAX + i] = v;
      }
    }
  }

  /** Drops a forgotten machine's open buckets. */
  forget(name: string): void {
    for (const bucket of this.open.values()) bucket.forget(name);
  }

  /** The open buckets as they stand (written at shutdown; a restart merges into them). */
  drain(): { tier: TierName; name: string; sample: Sample }[] {
    const out: { tier: TierName; name: string; sample: Sample }[] = [];
    for (const [tier, bucket] of this.open) {
      for (const [name, sample] of bucket.finished()) out.push({ tier, name, sample });
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

/** The sample of the row at `r` in `acc`. */
function finish(start: number, acc: Float64Array, r: number): Sample {
  const avg = emptyMetricRecord();
  const max = emptyMetricRecord();
  for (let i = 0; i < M; i += 1) {
    const k = METRICS[i] as MetricName;
    const count = acc[r + COUNT + i] as number;
    avg[k] = count === 0 ? null : (acc[r + SUM + i] as number) / count;
    const m = acc[r + MAX + i] as number;
    max[k] = Number.isNaN(m) ? null : m;
  }
  const n = acc[r + N] as number;
  return { t: start, n, up: (acc[r + UP] as number) / n, avg, max };
}
