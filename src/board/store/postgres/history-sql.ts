import type pg from 'pg';
import {
  METRIC_COLUMNS,
  type MetricColumn,
  type StateEvent,
  type TierName,
} from '../../history/history-store.js';
import type { ChangeSource } from '../../history/uptime-ledger.js';
import { COLUMN_TYPE, T_EPOCH } from './history-schema.js';

/**
 * The statements of the PostgreSQL history store. Every write sends a whole tier of a batch as
 * one statement whose parameters are arrays (`unnest`), so a sweep of 10,000 machines is one
 * INSERT with a handful of parameters, never one statement per row. Values are scaled integers
 * (history-rows.ts makes the parameters and reads the rows back); `t` is stored as seconds since
 * T_EPOCH, which each statement adds or takes away.
 */

const COLUMNS = METRIC_COLUMNS;

/** What a batch changed about the machines, published to readers once it is committed. */
export interface Pending {
  added: Map<string, number>;
  removed: Map<string, number>;
  firstSeen: Map<number, number>;
}

/** A bigint or numeric as node-postgres hands it over (int8 and numeric come as strings). */
type Int8 = string | number;

/** Each column's array parameter (`$first` on), typed as the column. */
const typedArrays = (columns: readonly string[], first: number): string =>
  columns
    .map((c, i) => `$${i + first}::${COLUMN_TYPE[c.replace(/_x$/, '') as MetricColumn]}[]`)
    .join(', ');

/** A state change as read back. */
export interface EventRow {
  at: Int8;
  up: boolean;
  previous: boolean | null;
  reason: string | null;
}

/** A machine as read back. */
export interface MachineRow {
  id: number;
  name: string;
  first_seen: Int8 | null;
}

/** Raw rows: machine, t (epoch seconds), up (0/1), then the values. */
export const INSERT_RAW = `INSERT INTO history_raw (m, t, up, ${COLUMNS.join(', ')})
  SELECT m, (t - ${T_EPOCH})::int4, up, ${COLUMNS.join(', ')}
  FROM unnest($1::int[], $2::bigint[], $3::smallint[], ${typedArrays(COLUMNS, 4)})
  AS u(m, t, up, ${COLUMNS.join(', ')})`;

/**
 * Aggregate rows, merged into a bucket already written as the libsql engine merges them, in
 * integers: the averages weighted by n and truncated (a null side takes the other), the larger
 * max, n added up. The batch holds each (m, t) once (see `aggregateParams`): PostgreSQL refuses
 * to update a row twice in one statement.
 */
function upsertAggregateSql(tier: 'm5' | 'h1'): string {
  const table = `history_${tier}`;
  const names = COLUMNS.flatMap((c) => [c, `${c}_x`]);
  const weighted = (c: string) =>
    `div(o.${c}::numeric * o.n + excluded.${c}::numeric * excluded.n, o.n + excluded.n)`;
  const avg = (c: string) =>
    `${c} = CASE WHEN o.${c} IS NULL THEN excluded.${c} WHEN excluded.${c} IS NULL THEN o.${c}
      ELSE ${weighted(c)} END`;
  const max = (c: string) => `${c}_x = greatest(o.${c}_x, excluded.${c}_x)`;
  return `INSERT INTO ${table} AS o (m, t, n, up, ${names.join(', ')})
  SELECT m, (t - ${T_EPOCH})::int4, n, up, ${names.join(', ')}
  FROM unnest($1::int[], $2::bigint[], $3::int[], $4::int2[], ${typedArrays(names, 5)})
  AS u(m, t, n, up, ${names.join(', ')})
  ON CONFLICT (m, t) DO UPDATE SET ${COLUMNS.map(avg).join(',\n    ')},
    up = ${weighted('up')}, ${COLUMNS.map(max).join(', ')}, n = o.n + excluded.n`;
}

/**
 * One machine's rows of a tier with from ≤ t < to folded into buckets of `step` seconds from
 * `from` (parameters: m, from, step, to, in epoch seconds): the bucket start, samples, share up,
 * then avg and max of each metric, as the libsql engine folds them: a sum of integers divided
 * in double precision. Raw rows weigh one each; aggregate rows weigh n (a metric's average over
 * the rows where it is known).
 */
function foldSql(tier: TierName): string {
  const bucket = `$2::bigint + (t + ${T_EPOCH}::bigint - $2::bigint) / $3::bigint * $3::bigint`;
  let values: string;
  if (tier === 'raw') {
    values = [
      'count(*) AS n',
      'sum(up)::float8 / count(*)::float8 AS up',
      ...COLUMNS.map((c) => `sum(${c})::float8 / count(${c})::float8 AS ${c}, max(${c}) AS ${c}_x`),
    ].join(', ');
  } else {
    const weighted = (c: string, known: string) =>
      `sum(${c}::int8 * n)::float8 / (sum(n) ${known})::float8`;
    values = [
      'sum(n) AS n',
      `${weighted('up', '')} AS up`,
      ...COLUMNS.map(
        (c) => `${weighted(c, `FILTER (WHERE ${c} IS NOT NULL)`)} AS ${c}, max(${c}_x) AS ${c}_x`,
      ),
    ].join(', ');
  }
  return `SELECT ${bucket} AS t, ${values} FROM history_${tier}
    WHERE m = $1 AND t >= $2::bigint - ${T_EPOCH} AND t < $4::bigint - ${T_EPOCH} GROUP BY 1 ORDER BY 1`;
}

/** The aggregate tiers' upserts. */
export const UPSERT = { m5: upsertAggregateSql('m5'), h1: upsertAggregateSql('h1') } as const;

/** Each tier's fold (parameters: machine, from, step, to). */
export const FOLD: Readonly<Record<TierName, string>> = {
  raw: foldSql('raw'),
  m5: foldSql('m5'),
  h1: foldSql('h1'),
};

/**
 * Ids for new names (parameter: the names, each once), in order: the inserted ones, and any the
 * table already held (none while this store is the only writer, but then no id is guessed).
 */
export const ADD_MACHINES = `WITH input AS (SELECT name, i FROM unnest($1::text[]) WITH ORDINALITY AS u(name, i)),
  added AS (INSERT INTO history_machines (name) SELECT name FROM input ORDER BY i
    ON CONFLICT (name) DO NOTHING RETURNING id, name)
  SELECT id, name FROM added UNION ALL SELECT h.id, h.name FROM history_machines h JOIN input USING (name)`;

/** Forgets machines (parameter: their ids): gone for readers now, their rows deleted later. */
export const FORGET_MACHINES = `WITH gone AS (DELETE FROM history_machines WHERE id = ANY($1::int[]) RETURNING id)
  INSERT INTO history_forgotten (id) SELECT id FROM gone ON CONFLICT DO NOTHING`;

/**
 * State changes (parameters: machine, at, up, previous, reason; sorted by time) and each
 * machine's first seen moved back to its earliest change (only where it moves: an UPDATE writes
 * a new version of every row it touches).
 */
export const INSERT_EVENTS = `WITH input AS (SELECT * FROM unnest($1::int[], $2::bigint[], $3::bool[], $4::bool[], $5::text[])
    WITH ORDINALITY AS u(m, at, up, previous, reason, i)),
  added AS (INSERT INTO history_events (m, at, up, previous, reason)
    SELECT m, at, up, previous, reason FROM input ORDER BY i)
  UPDATE history_machines h SET first_seen = least(h.first_seen, f.at)
  FROM (SELECT m, min(at) AS at FROM input GROUP BY m) f
  WHERE h.id = f.m AND (h.first_seen IS NULL OR f.at < h.first_seen)`;

/** Reasons are cut to this length (as the libsql engine cuts them). */
const REASON_MAX = 500;

/** The parameters of INSERT_EVENTS: one array per column (events sorted by time). */
export function eventParams(events: readonly ({ m: number } & StateEvent)[]): unknown[][] {
  return [
    events.map((e) => e.m),
    events.map((e) => e.at),
    events.map((e) => e.state === 'up'),
    events.map((e) => (e.previous === null ? null : e.previous === 'up')),
    events.map((e) => e.reason?.slice(0, REASON_MAX) ?? null),
  ];
}

/**
 * Rows older than each tier's cutoff, a bounded number per tier (parameters: raw cutoff and
 * limit, m5's, h1's, then the events' cutoff in ms and limit). A machine's last change is kept
 * whatever its age: it is the state still in force. `ctid = ANY(ARRAY(…))` is a TID scan: the
 * rows are found through the index on t and deleted where they lie.
 */
export const PRUNE = `WITH ${['raw', 'm5', 'h1']
  .map(
    (tier, i) => `${tier} AS (DELETE FROM history_${tier} WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM history_${tier} WHERE t < $${i * 2 + 1}::bigint - ${T_EPOCH} LIMIT $${i * 2 + 2}::int)) RETURNING 1)`,
  )
  .join(',\n  ')},
  ev AS (DELETE FROM history_events WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM history_events e WHERE e.at < $7::bigint
    AND EXISTS (SELECT 1 FROM history_events l WHERE l.m = e.m AND l.at > e.at) LIMIT $8::int)) RETURNING 1)
  SELECT (SELECT count(*) FROM raw) + (SELECT count(*) FROM m5) + (SELECT count(*) FROM h1)
    + (SELECT count(*) FROM ev) AS n`;

/** Forgotten ids whose rows are still to delete (parameter: how many at most). */
export const FORGOTTEN_IDS = 'SELECT id FROM history_forgotten ORDER BY id LIMIT $1';

/** Deletes up to $2 rows of the machines $1 from a table. */
export function dropRowsSql(table: string): string {
  return `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM ${table} WHERE m = ANY($1::int[]) LIMIT $2::int))`;
}

/** The tables holding rows by machine, all of which a forgotten machine's rows leave. */
export const MACHINE_TABLES = ['history_raw', 'history_m5', 'history_h1', 'history_events'];

/** Unmarks the forgotten ids of $1 with no row left anywhere. */
export const UNMARK_FORGOTTEN = `DELETE FROM history_forgotten f WHERE id = ANY($1::int[])
  ${MACHINE_TABLES.map((t) => `AND NOT EXISTS (SELECT 1 FROM ${t} x WHERE x.m = f.id)`).join('\n  ')}`;

/**
 * The next machines after id $1 (at most $2) checked for having nothing left within retention:
 * no row in any tier and no state change at or after $3 (ms). Those are forgotten (their old
 * changes then go with the forgotten rows, a bounded number per batch). Answers each checked id
 * and, for those forgotten, the name.
 */
export const PRUNE_IDLE = `WITH batch AS (SELECT id FROM history_machines WHERE id > $1 ORDER BY id LIMIT $2),
  idle AS (SELECT b.id FROM batch b
    WHERE ${MACHINE_TABLES.slice(0, 3)
      .map((t) => `NOT EXISTS (SELECT 1 FROM ${t} x WHERE x.m = b.id)`)
      .join(' AND ')}
    AND NOT EXISTS (SELECT 1 FROM history_events x WHERE x.m = b.id AND x.at >= $3::bigint)),
  gone AS (DELETE FROM history_machines h USING idle WHERE h.id = idle.id RETURNING h.id, h.name),
  marked AS (INSERT INTO history_forgotten (id) SELECT id FROM gone ON CONFLICT DO NOTHING)
  SELECT b.id, g.name FROM batch b LEFT JOIN gone g ON g.id = b.id ORDER BY b.id`;

/** One machine's latest changes (parameters: machine, limit). */
export const EVENTS = `SELECT at, up, previous, reason FROM history_events WHERE m = $1
  ORDER BY at DESC, seq DESC LIMIT $2`;

/** The committed machines. */
export const MACHINES = 'SELECT id, name, first_seen FROM history_machines';

/** Changes in each window (lo, hi] of $1, $2 (arrays), each window's by machine, in order. */
export const CHANGES_BETWEEN = `SELECT r.w::int AS w, e.m, e.at, e.up
  FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS r(lo, hi, w)
  JOIN history_events e ON e.at > r.lo AND e.at <= r.hi ORDER BY r.w, e.m, e.at, e.seq`;

/** Each machine's state in force at $1: its last change at or before it (null: none). */
export const STATE_AT = `SELECT h.id AS m, (SELECT e.up FROM history_events e WHERE e.m = h.id AND e.at <= $1::bigint
  ORDER BY e.at DESC, e.seq DESC LIMIT 1) AS up FROM history_machines h`;

/** Every change of the machines with a change after $1 (a clock set back), in order. */
export const CHANGES_OF_LATE = `SELECT m, at, up FROM history_events
  WHERE m IN (SELECT m FROM history_events WHERE at > $1::bigint) ORDER BY m, at, seq`;

/** A change read for the uptime ledger. */
export interface ChangeRow {
  w?: number;
  m: number;
  at: Int8;
  up: boolean | null;
}

/** The ledger asked for changes that were not fetched: it is to be rebuilt. */
export class MissingChanges extends Error {}

type Change = readonly [number, number, boolean];

/**
 * The committed changes one uptime read needs, fetched before it: the UptimeLedger reads its
 * ChangeSource synchronously, node-postgres answers asynchronously. Anything asked for beyond
 * what was fetched throws MissingChanges (the store then rebuilds the ledger). Changes of
 * machines no longer known are left out, as the libsql engine leaves them out.
 */
export class PrefetchedChanges implements ChangeSource {
  private ranges: { lo: number; hi: number; rows: Change[] }[] = [];
  private state: { at: number; rows: (readonly [number, boolean])[] } | null = null;
  private late: Map<number, [number, boolean][]> | null = null;

  constructor(private readonly known: (id: number) => boolean) {}

  /**
   * Fetches the changes in each (lo, hi] of `ranges`, each machine's state at `stateAt` (null:
   * not needed) and all the changes of the machines with one after `now` (a clock set back).
   */
  async fetch(
    pool: pg.Pool,
    ranges: readonly (readonly [number, number])[],
    stateAt: number | null,
    now: number,
  ): Promise<void> {
    this.clear();
    // Whole ms for the bigint parameters: for a whole `at`, at > x is at > ⌊x⌋, at ≤ x is at ≤ ⌊x⌋.
    const floor = Math.floor;
    const [between, state, late] = await Promise.all([
      ranges.length === 0
        ? null
        : pool.query<ChangeRow>(CHANGES_BETWEEN, [
            ranges.map((r) => floor(r[0])),
            ranges.map((r) => floor(r[1])),
          ]),
      stateAt === null ? null : pool.query<ChangeRow>(STATE_AT, [floor(stateAt)]),
      pool.query<ChangeRow>(CHANGES_OF_LATE, [floor(now)]),
    ]);
    this.ranges = ranges.map(([lo, hi]) => ({ lo, hi, rows: [] }));
    for (const r of between?.rows ?? [])
      this.ranges[(r.w ?? 1) - 1]?.rows.push([r.m, Number(r.at), r.up === true]);
    if (state !== null && stateAt !== null) {
      const rows: (readonly [number, boolean])[] = [];
      for (const r of state.rows) if (r.up !== null) rows.push([r.m, r.up]);
      this.state = { at: stateAt, rows };
    }
    this.late = new Map();
    for (const r of late.rows) {
      let changes = this.late.get(r.m);
      if (changes === undefined) {
        changes = [];
        this.late.set(r.m, changes);
      }
      changes.push([Number(r.at), r.up === true]);
    }
  }

  /** Lets go of what was fetched (a rebuild's may be a month of changes). */
  clear(): void {
    this.ranges = [];
    this.state = null;
    this.late = null;
  }

  *between(from: number, to: number): Iterable<Change> {
    const range = this.ranges.find((r) => r.lo <= from && to <= r.hi);
    if (range === undefined) throw new MissingChanges(`changes in (${from}, ${to}] not fetched`);
    for (const c of range.rows) if (c[1] > from && c[1] <= to && this.known(c[0])) yield c;
  }

  *stateAt(at: number): Iterable<readonly [number, boolean]> {
    if (this.state?.at !== at) throw new MissingChanges(`states at ${at} not fetched`);
    for (const s of this.state.rows) if (this.known(s[0])) yield s;
  }

  of(id: number): readonly (readonly [number, boolean])[] {
    const changes = this.late?.get(id);
    if (changes === undefined) throw new MissingChanges(`changes of machine ${id} not fetched`);
    return changes;
  }
}
