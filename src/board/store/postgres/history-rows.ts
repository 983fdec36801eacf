import {
  METRIC_COLUMNS,
  METRICS,
  type MetricColumn,
  type MetricName,
  type RawSweep,
  type Sample,
  sweepValue,
  type TierName,
} from '../../history/history-store.js';
import { SCALE, UP_SCALE } from '../scaled-values.js';
import { COLUMN_TYPE, TYPE_MAX } from './history-schema.js';

/**
 * Samples as the PostgreSQL history's rows and back: scaled integers as the libsql engine stores
 * them (scaled-values.ts), rounded and divided back alike, so both engines answer the same values.
 */

const COLUMNS = METRIC_COLUMNS;
/** Each metric's scale and the largest value its column holds, in METRICS order. */
const SCALES = METRICS.map((k) => SCALE[k]);
const MAXIMA = COLUMNS.map((c) => TYPE_MAX[COLUMN_TYPE[c]]);

/** A bigint or numeric as node-postgres hands it over (int8 and numeric come as strings). */
type Int8 = string | number;

/** A folded row (see `FOLD`): the bucket, its samples, share up, then each column's avg and max. */
export type FoldedRow = { t: Int8; n: Int8; up: number } & Record<
  MetricColumn | `${MetricColumn}_x`,
  Int8 | null
>;

/**
 * Metric `i`'s value as stored: scaled and rounded, kept within its column's type (a value
 * beyond it, which no agent sends, is stored as the type's limit rather than fail the batch).
 */
function stored(value: number | null, i: number): number | null {
  // Not a number (absent, NaN): null, as libsql binds a NaN.
  if (typeof value !== 'number' || Number.isNaN(value)) return null;
  const max = MAXIMA[i] as number;
  return Math.min(max, Math.max(-max, Math.round(value * (SCALES[i] as number))));
}

/** A folded row as a Sample (a raw row's up is a share of 0/1 rows, an aggregate's is scaled). */
export function decodeSample(r: FoldedRow, tier: TierName): Sample {
  const avg = {} as Record<MetricName, number | null>;
  const max = {} as Record<MetricName, number | null>;
  METRICS.forEach((k, i) => {
    const c = COLUMNS[i] ?? 'cpu';
    const a = r[c];
    const x = r[`${c}_x`];
    avg[k] = a === null ? null : Number(a) / SCALE[k];
    max[k] = x === null ? null : Number(x) / SCALE[k];
  });
  const up = Number(r.up);
  return { t: Number(r.t), n: Number(r.n), up: tier === 'raw' ? up : up / UP_SCALE, avg, max };
}

/** The parameters of INSERT_RAW: one array per column. */
export class RawParams {
  private readonly m: number[] = [];
  private readonly t: number[] = [];
  private readonly up: number[] = [];
  private readonly values = COLUMNS.map((): (number | null)[] => []);

  get length(): number {
    return this.m.length;
  }

  /** One raw sample. */
  add(id: number, sample: Sample): void {
    this.m.push(id);
    this.t.push(Math.floor(sample.t));
    this.up.push(Math.round(sample.up));
    METRICS.forEach((k, i) => {
      this.values[i]?.push(stored(sample.avg[k], i));
    });
  }

  /** A sweep's rows, read from its columns (no sample made). */
  addSweep(sweep: RawSweep, id: (name: string) => number): void {
    const t = Math.floor(sweep.t);
    sweep.names.forEach((name, row) => {
      this.m.push(id(name));
      this.t.push(t);
      this.up.push(sweep.up[row] as number);
      this.values.forEach((column, k) => {
        column.push(stored(sweepValue(sweep, row, k), k));
      });
    });
  }

  /** The parameters of INSERT_RAW. */
  params(): unknown[][] {
    return [this.m, this.t, this.up, ...this.values];
  }
}

/** An aggregate row as stored: n, up, then each metric's avg and max. */
interface Stored {
  id: number;
  t: number;
  n: number;
  up: number;
  values: (number | null)[];
}

/**
 * Two rows of one bucket merged as the upsert merges them (and as the libsql engine does, in
 * integers): averages weighted by n and truncated (a null side takes the other), the larger max.
 */
function merge(a: Stored, b: Stored): Stored {
  const n = a.n + b.n;
  const avg = (x: number, y: number) => Math.trunc((x * a.n + y * b.n) / n);
  const values = a.values.map((x, i) => {
    const y = b.values[i] ?? null;
    if (x === null || y === null) return x ?? y;
    return i % 2 === 0 ? avg(x, y) : Math.max(x, y);
  });
  return { id: a.id, t: a.t, n, up: avg(a.up, b.up), values };
}

/**
 * The parameters of an aggregate upsert: one array per column, each (m, t) once (a bucket
 * written twice in one batch is merged here first, as the upsert would merge it).
 */
export function aggregateParams(rows: readonly { id: number; sample: Sample }[]): unknown[][] {
  const merged = new Map<string, Stored>();
  for (const { id, sample } of rows) {
    const t = Math.floor(sample.t);
    const row: Stored = {
      id,
      t,
      n: sample.n,
      up: Math.round(sample.up * UP_SCALE),
      values: METRICS.flatMap((k, i) => [stored(sample.avg[k], i), stored(sample.max[k], i)]),
    };
    const key = `${id}:${t}`;
    const held = merged.get(key);
    merged.set(key, held === undefined ? row : merge(held, row));
  }
  const rowsOf = [...merged.values()];
  const values = COLUMNS.flatMap((_, i) => [
    rowsOf.map((r) => r.values[i * 2] ?? null),
    rowsOf.map((r) => r.values[i * 2 + 1] ?? null),
  ]);
  return [
    rowsOf.map((r) => r.id),
    rowsOf.map((r) => r.t),
    rowsOf.map((r) => r.n),
    rowsOf.map((r) => r.up),
    ...values,
  ];
}
