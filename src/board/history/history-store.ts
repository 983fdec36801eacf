/**
 * The history store: what the board remembers, behind one small interface that history owns and
 * the engines in store/ implement (store/history-contract-rows.case.ts and
 * history-contract-changes.case.ts are the tests each must pass).
 */

/** The tiers, finest first: raw sweeps, then aggregates (avg and max) at coarser steps. */
export const TIERS = ['raw', 'm5', 'h1'] as const;
export type TierName = (typeof TIERS)[number];

/** The bucket of each aggregate tier, in seconds (raw: one row per sweep). */
export const TIER_STEP_S: Readonly<Record<TierName, number>> = { raw: 0, m5: 300, h1: 3600 };

/** The metrics recorded per machine per sweep (null: nothing known, e.g. the machine is down). */
export const METRICS = [
  'cpu',
  'mem',
  'load',
  'disk',
  'latency_ms',
  'bells',
  'gpu_util',
  'gpu_mem',
  'net_rx',
  'net_tx',
  'temp_max',
] as const;
export type MetricName = (typeof METRICS)[number];

/** The engines' column of a metric: its name, but `lat` for latency_ms. */
export type MetricColumn = Exclude<MetricName, 'latency_ms'> | 'lat';
/** The engines' columns, in METRICS order. */
export const METRIC_COLUMNS: readonly MetricColumn[] = METRICS.map((m) =>
  m === 'latency_ms' ? 'lat' : m,
);

/**
 * One row of a tier: a sweep (raw, n = 1, max = avg) or a bucket's aggregate (`t` its start).
 * `up` is the share of the samples in which the machine was up (0–1).
 */
export interface Sample {
  /** Epoch seconds. */
  t: number;
  /** Samples folded into this row. */
  n: number;
  up: number;
  avg: Record<MetricName, number | null>;
  max: Record<MetricName, number | null>;
}

/** A state change, exact (not sampled). */
export interface StateEvent {
  /** ms since the epoch. */
  at: number;
  state: 'up' | 'down';
  /** null: first seen since the board started. */
  previous: 'up' | 'down' | null;
  reason: string | null;
}

/**
 * One sweep's raw samples as columns: a name, an up flag and METRICS.length numbers
 * (in METRICS order, NaN: null) per machine, all at `t` (n = 1, max = avg). A sweep of 15,000
 * machines is then three arrays, not 75,000 small objects that lived until the batch was
 * written, were promoted by the scavenges they outlived, and made those scavenges long.
 */
export interface RawSweep {
  t: number;
  names: string[];
  up: Uint8Array;
  values: Float64Array;
}

/** One sweep's worth of writes: committed together, or not at all. */
export interface WriteBatch {
  /** Rows per tier, by machine name. */
  samples: { tier: TierName; name: string; sample: Sample }[];
  /** Raw rows, one sweep's as columns (absent: none). Written as if they were in `samples`. */
  sweeps?: RawSweep[];
  events: ({ name: string } & StateEvent)[];
  /** Machines forgotten: their history goes (at once for readers, in bounded chunks on disk). */
  forget: string[];
  /** Rows older than this (epoch seconds) are pruned, a bounded number per batch. */
  cutoffs: Record<TierName, number>;
}

/** One machine's uptime figures: when first seen, and the ms it was up in each window to now. */
export interface UptimeTotals {
  name: string;
  /** ms since the epoch of the first recorded state change. */
  firstSeen: number;
  /** ms up within [now − 24 h, now], [now − 7 d, now] and [now − 30 d, now]. */
  upMs: { '24h': number; '7d': number; '30d': number };
}

/** Where the board's history lives. */
export interface HistoryStore {
  /** Commits one batch (one transaction), yielding to the event loop between small chunks. */
  write(batch: WriteBatch): Promise<void>;
  /**
   * Rows of a tier for one machine with from ≤ t < to (epoch seconds), oldest first, folded into
   * buckets of `stepS` seconds from `fromS` (default 1: as stored): each answered row is a
   * bucket, `t` its start, averages weighted by samples, the max of the maxima. The store
   * folds (in SQL for libsql), so a day of raw sweeps crosses into JavaScript as 300 rows.
   */
  samples(
    name: string,
    tier: TierName,
    fromS: number,
    toS: number,
    stepS?: number,
  ): Promise<Sample[]>;
  /** The machine's latest state changes, most recent first. */
  events(name: string, limit: number): Promise<StateEvent[]>;
  /** Every machine with history, by name: first seen and ms up in each uptime window to `nowMs`. */
  uptimeTotals(nowMs: number): Promise<UptimeTotals[]>;
  /** Whether the store holds history for the name (forgotten names do not). */
  has(name: string): Promise<boolean>;
  /**
   * Where several boards write one store: reads again what the others wrote (the machines, and
   * the uptime figures at the next read). Absent where one board writes its history alone.
   */
  refresh?(): Promise<void>;
  /** Waits for pending work and releases the store. */
  close(): Promise<void>;
}

/** A sample with every metric null. */
export function emptyMetricRecord(): Record<MetricName, number | null> {
  return {
    cpu: null,
    mem: null,
    load: null,
    disk: null,
    latency_ms: null,
    bells: null,
    gpu_util: null,
    gpu_mem: null,
    net_rx: null,
    net_tx: null,
    temp_max: null,
  };
}

/** The value of metric number `k` (METRICS order) of the sweep's row `row`; null: none. */
export function sweepValue(sweep: RawSweep, row: number, k: number): number | null {
  const value = sweep.values[row * METRICS.length + k] as number;
  return Number.isNaN(value) ? null : value;
}

/** Every row a batch writes: its `samples`, then each of its sweeps' rows as samples. */
export function batchSamples(batch: WriteBatch): WriteBatch['samples'] {
  if (batch.sweeps === undefined || batch.sweeps.length === 0) return batch.samples;
  const out = batch.samples.slice();
  for (const sweep of batch.sweeps) {
    for (let i = 0; i < sweep.names.length; i += 1) {
      const avg = emptyMetricRecord();
      for (let k = 0; k < METRICS.length; k += 1)
        avg[METRICS[k] as MetricName] = sweepValue(sweep, i, k);
      const sample = { t: sweep.t, n: 1, up: sweep.up[i] as number, avg, max: { ...avg } };
      out.push({ tier: 'raw', name: sweep.names[i] as string, sample });
    }
  }
  return out;
}
