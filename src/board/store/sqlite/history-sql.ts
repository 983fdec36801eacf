import type Database from 'libsql';
import {
  METRIC_COLUMNS,
  METRICS,
  type MetricName,
  type Sample,
  type TierName,
} from '../../history/history-store.js';
import { SCALE, scaled, UP_SCALE } from '../scaled-values.js';

/**
 * The statements of the libsql history store: the writer's (one connection, one transaction per
 * batch) and the reader's (a second connection, which sees only committed batches).
 */

const COLUMNS = METRIC_COLUMNS;

export type Row = (number | null)[];
type Statement = Database.Statement;
type ByTier = Record<TierName, Statement>;

/** The writer connection's statements. */
export interface WriterStatements {
  addMachine: Statement;
  firstSeen: Statement;
  forgetMachine: Statement;
  markForgotten: Statement;
  forgottenIds: Statement;
  unmarkForgotten: Statement;
  raw: Statement;
  m5: Statement;
  h1: Statement;
  event: Statement;
  prune: ByTier;
  pruneEvents: Statement;
  /** A machine's rows, a bounded number at a time: each tier's, then its state changes'. */
  drop: Statement[];
  /** The same for its state changes alone (the last entry of `drop`). */
  dropEvents: Statement;
  machinesAfter: Statement;
  idle: Statement;
}

/** The reader connection's statements. */
export interface ReaderStatements {
  machines: Statement;
  /** [1] when rows of forgotten machines are still to be dropped, else [0]. */
  anyForgotten: Statement;
  folded: Record<TierName, Folded>;
  events: Statement;
  changesBetween: Statement;
  stateAt: Statement;
  changesOf: Statement;
}

/** The statements that write, on the writer connection. */
export function writerStatements(db: Database.Database): WriterStatements {
  const aggregate = (tier: string) => {
    const avg = (c: string) =>
      `${c} = CASE WHEN ${c} IS NULL THEN excluded.${c} WHEN excluded.${c} IS NULL THEN ${c} ELSE (${c} * n + excluded.${c} * excluded.n) / (n + excluded.n) END`;
    const max = (c: string) =>
      `${c}_x = max(coalesce(${c}_x, excluded.${c}_x), coalesce(excluded.${c}_x, ${c}_x))`;
    return db.prepare(
      `INSERT INTO ${tier} VALUES (${placeholders(4 + 2 * COLUMNS.length)}) ON CONFLICT (m, t) DO UPDATE SET
       ${COLUMNS.map(avg).join(', ')}, up = (up * n + excluded.up * excluded.n) / (n + excluded.n),
       ${COLUMNS.map(max).join(', ')}, n = n + excluded.n`,
    );
  };
  const prune = (tier: string) =>
    db.prepare(
      `DELETE FROM ${tier} WHERE rowid IN (SELECT rowid FROM ${tier} ORDER BY rowid LIMIT ?) AND t < ?`,
    );
  const dropMachine = (table: string) =>
    db.prepare(
      `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE m = ? LIMIT ?)`,
    );
  const dropEvents = dropMachine('events');
  return {
    addMachine: db.prepare('INSERT INTO machines (name, first_seen) VALUES (?, NULL)'),
    firstSeen: db.prepare('UPDATE machines SET first_seen = ? WHERE id = ?'),
    forgetMachine: db.prepare('DELETE FROM machines WHERE id = ?'),
    markForgotten: db.prepare('INSERT OR IGNORE INTO forgotten (id) VALUES (?)'),
    forgottenIds: db.prepare('SELECT id FROM forgotten LIMIT 16').pluck(),
    unmarkForgotten: db.prepare('DELETE FROM forgotten WHERE id = ?'),
    raw: db.prepare(`INSERT INTO raw VALUES (${placeholders(3 + COLUMNS.length)})`),
    m5: aggregate('m5'),
    h1: aggregate('h1'),
    event: db.prepare('INSERT INTO events VALUES (?,?,?,?,?)'),
    prune: { raw: prune('raw'), m5: prune('m5'), h1: prune('h1') },
    // The last change of a machine is kept whatever its age: it is the state still in force.
    pruneEvents: db.prepare(
      `DELETE FROM events WHERE rowid IN (SELECT rowid FROM events ORDER BY rowid LIMIT ?) AND at < ?
       AND EXISTS (SELECT 1 FROM events e WHERE e.m = events.m AND e.at > events.at)`,
    ),
    drop: [...['raw', 'm5', 'h1'].map(dropMachine), dropEvents],
    dropEvents,
    machinesAfter: db
      .prepare('SELECT id, name FROM machines WHERE id > ? ORDER BY id LIMIT ?')
      .raw(true),
    // 1 if the machine has no row in any tier and no state change at or after the cutoff
    // (parameters: id, id, id, id, cutoff).
    idle: db
      .prepare(
        `SELECT NOT EXISTS (SELECT 1 FROM raw WHERE m = ?) AND NOT EXISTS (SELECT 1 FROM m5 WHERE m = ?)
         AND NOT EXISTS (SELECT 1 FROM h1 WHERE m = ?)
         AND NOT EXISTS (SELECT 1 FROM events WHERE m = ? AND at >= ?)`,
      )
      .raw(true),
  };
}

/**
 * The statements that read, on the reader connection (made query-only here, once its table of
 * bucket numbers is filled: a temporary table, in memory, of this connection alone).
 */
export function readerStatements(db: Database.Database): ReaderStatements {
  db.pragma('temp_store = MEMORY');
  db.exec('CREATE TEMP TABLE bucket (i INTEGER PRIMARY KEY)');
  db.prepare(
    `WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < ?)
     INSERT INTO temp.bucket SELECT i FROM k`,
  ).run(BUCKETS_MAX);
  db.pragma('query_only = ON');
  return {
    machines: db.prepare('SELECT id, name, first_seen FROM machines').raw(true),
    anyForgotten: db.prepare('SELECT EXISTS (SELECT 1 FROM forgotten)').raw(true),
    folded: { raw: folded(db, 'raw'), m5: folded(db, 'm5'), h1: folded(db, 'h1') },
    events: db
      .prepare(
        'SELECT at, state, previous, reason FROM events WHERE m = ? ORDER BY at DESC, rowid DESC LIMIT ?',
      )
      .raw(true),
    changesBetween: db
      .prepare('SELECT m, at, state FROM events WHERE at > ? AND at <= ? ORDER BY m, at, rowid')
      .raw(true),
    stateAt: db
      .prepare(
        `SELECT id, (SELECT state FROM events WHERE m = machines.id AND at <= ? ORDER BY at DESC, rowid DESC LIMIT 1)
         FROM machines`,
      )
      .raw(true),
    changesOf: db.prepare('SELECT at, state FROM events WHERE m = ? ORDER BY at, rowid').raw(true),
  };
}

/** Buckets a query folds through the bucket table (more: the GROUP BY statement). */
export const BUCKETS_MAX = 2000;

/** One machine's rows of a tier folded into buckets, the two ways (see readerStatements). */
export interface Folded {
  /** Parameters: from, step, m, from, step, from, step, to, count. */
  byBucket: Statement;
  /** Parameters: from, from, step, step, m, from, to. */
  grouped: Statement;
}

/**
 * The statements folding one machine's rows of a tier into buckets: the bucket start, samples,
 * share up, then avg and max of each metric. `byBucket` walks a table of bucket numbers and
 * reads each bucket's rows from the index: the groups come out in order, so SQLite does not sort
 * the rows (a day of raw sweeps: about half the time of GROUP BY on a computed bucket, which
 * sorts 17,280 rows first). `grouped` serves a window of more than BUCKETS_MAX buckets.
 */
function folded(db: Database.Database, tier: TierName): Folded {
  const metrics =
    tier === 'raw'
      ? COLUMNS.map((c) => `avg(${c}), max(${c})`)
      : COLUMNS.map(
          (c) =>
            `sum(${c} * n) * 1.0 / sum(CASE WHEN ${c} IS NULL THEN NULL ELSE n END), max(${c}_x)`,
        );
  const head = tier === 'raw' ? 'count(*), avg(up)' : 'sum(n), sum(up * n) * 1.0 / sum(n)';
  const values = `${head}, ${metrics.join(', ')}`;
  return {
    byBucket: db
      .prepare(
        `SELECT ? + i * ?, ${values} FROM temp.bucket CROSS JOIN ${tier}
         ON ${tier}.m = ? AND ${tier}.t >= ? + i * ? AND ${tier}.t < min(? + (i + 1) * ?, ?)
         WHERE i < ? GROUP BY i`,
      )
      .raw(true),
    grouped: db
      .prepare(
        `SELECT ? + CAST((t - ?) / ? AS INTEGER) * ? AS b, ${values}
         FROM ${tier} WHERE m = ? AND t >= ? AND t < ? GROUP BY b ORDER BY b`,
      )
      .raw(true),
  };
}

/**
 * One machine's rows of a tier folded into `count` buckets of `step` seconds from `from`
 * (the statement that suits the count; see Folded).
 */
export function foldedRows(
  read: ReaderStatements,
  tier: TierName,
  m: number,
  window: { from: number; step: number; to: number; count: number },
): Row[] {
  const { from, step, to, count } = window;
  const folded = read.folded[tier];
  const rows =
    count <= BUCKETS_MAX
      ? folded.byBucket.all(from, step, m, from, step, from, step, to, count)
      : folded.grouped.all(from, from, step, step, m, from, to);
  return rows as Row[];
}

/** A folded row as a Sample. */
export function decodeSample(r: Row, tier: TierName): Sample {
  const avg = {} as Record<MetricName, number | null>;
  const max = {} as Record<MetricName, number | null>;
  for (let i = 0; i < METRICS.length; i += 1) {
    const k = METRICS[i] as MetricName;
    const a = r[3 + i * 2] ?? null;
    const x = r[4 + i * 2] ?? null;
    avg[k] = a === null ? null : a / SCALE[k];
    max[k] = x === null ? null : x / SCALE[k];
  }
  const up = Number(r[2]);
  return { t: Number(r[0]), n: Number(r[1]), up: tier === 'raw' ? up : up / UP_SCALE, avg, max };
}

/** The values of a sample as the row of its tier (after the machine id). */
export function encodeSample(tier: TierName, sample: Sample): Row {
  if (tier === 'raw')
    return [
      Math.floor(sample.t),
      Math.round(sample.up),
      ...METRICS.map((k) => scaled(sample.avg[k], SCALE[k])),
    ];
  const values: Row = [sample.t, sample.n, scaled(sample.up, UP_SCALE)];
  for (const k of METRICS)
    values.push(scaled(sample.avg[k], SCALE[k]), scaled(sample.max[k], SCALE[k]));
  return values;
}

function placeholders(count: number): string {
  return new Array<string>(count).fill('?').join(',');
}
