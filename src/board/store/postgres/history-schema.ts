import type { MetricColumn } from '../../history/history-store.js';

/**
 * The history tables in PostgreSQL, versioned by migrate.ts (component "history"). To change
 * the schema: append a migration and never edit one that shipped.
 *
 * Since migration 4 the samples are stored as the libsql engine stores them, scaled integers
 * (see scaled-values.ts), in the narrowest type that holds them: int2 for the shares and
 * temp_max, int4 for load, latency and bells, int8 for the network rates; `t` is an int4 of
 * seconds since T_EPOCH. Columns are ordered widest first, so that no byte goes to alignment.
 */
// Migration 4's own copy of the columns, scales and types (a shipped migration never changes),
// widest first: the int8 rates, then m, t (and n), the int4 columns, then up and the int2 ones.
type Column4 = readonly [name: string, scale: number, type: string];
const MAX_4: Record<string, number> = {
  int2: 32_767,
  int4: 2_147_483_647,
  int8: 9_007_199_254_740_991,
};
const WIDE_4: Column4[] = [
  ['net_rx', 1, 'int8'],
  ['net_tx', 1, 'int8'],
];
const MID_4: Column4[] = [
  ['load', 100, 'int4'],
  ['lat', 10, 'int4'],
  ['bells', 100, 'int4'],
];
const NARROW_4: Column4[] = [
  ['cpu', 1e4, 'int2'],
  ['mem', 1e4, 'int2'],
  ['disk', 1e4, 'int2'],
  ['gpu_util', 1e4, 'int2'],
  ['gpu_mem', 1e4, 'int2'],
  ['temp_max', 10, 'int2'],
];
const key4 = (name: string, type: string): Column4 => [name, 0, `${type} NOT NULL`];
const withMax = (columns: Column4[]): Column4[] =>
  columns.flatMap(([c, s, ty]) => [[c, s, ty] as Column4, [`${c}_x`, s, ty] as Column4]);
const RAW_COLUMNS_4: Column4[] = [
  ...WIDE_4,
  key4('m', 'int4'),
  key4('t', 'int4'),
  ...MID_4,
  key4('up', 'int2'),
  ...NARROW_4,
];
const AGGREGATE_COLUMNS_4: Column4[] = [
  ...withMax(WIDE_4),
  key4('m', 'int4'),
  key4('t', 'int4'),
  key4('n', 'int4'),
  ...withMax(MID_4),
  key4('up', 'int2'),
  ...withMax(NARROW_4),
];

/** A double as its scaled integer, rounded half up (as Math.round) and kept within the type. */
function converted(column: string, scale: number, type: string): string {
  const max = MAX_4[type] ?? 0;
  // least and greatest skip nulls: a null is kept null first.
  return `CASE WHEN ${column} IS NOT NULL THEN least(greatest(floor(${column} * ${scale} + 0.5), -${max}), ${max})::${type} END`;
}

export const HISTORY_MIGRATIONS: readonly string[] = [
  // 1: machines (an id per name: a name forgotten and seen again is a new machine), the ids whose
  // rows are still being deleted, state changes, raw sweeps and the two aggregate tiers.
  `
  CREATE TABLE history_machines (
    id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL UNIQUE,
    first_seen bigint
  );
  CREATE TABLE history_forgotten (id integer PRIMARY KEY);
  CREATE TABLE history_events (
    seq bigint GENERATED ALWAYS AS IDENTITY,
    m integer NOT NULL,
    at bigint NOT NULL,
    up boolean NOT NULL,
    previous boolean,
    reason text
  );
  -- A machine's changes in order (ties by insertion: seq); pruning walks them by age.
  CREATE INDEX history_events_m_at ON history_events (m, at, seq);
  CREATE INDEX history_events_at ON history_events (at);
  CREATE TABLE history_raw (
    m integer NOT NULL,
    up smallint NOT NULL,
    t bigint NOT NULL,
    cpu double precision,
    mem double precision,
    load double precision,
    disk double precision,
    lat double precision,
    bells double precision
  );
  -- One machine's sweeps are scattered one per heap page (a sweep writes every machine side by
  -- side): the index carries the values so that a day of one machine is read from the index
  -- alone (index-only scan), as the libsql engine's covering index does.
  CREATE INDEX history_raw_m_t ON history_raw (m, t)
    INCLUDE (up, cpu, mem, load, disk, lat, bells);
  -- Pruning finds the oldest rows of every machine (PostgreSQL has no rowid order to use).
  CREATE INDEX history_raw_t ON history_raw (t);
  ${aggregateTable('history_m5')}
  ${aggregateTable('history_h1')}
  `,
  // 2: the busiest GPU's share busy and memory share (null without GPUs: a null costs a bit in
  // the row's null bitmap). The raw index is made again to carry them, so that a machine's day
  // is still an index-only scan.
  `
  ALTER TABLE history_raw ADD COLUMN gpu_util double precision, ADD COLUMN gpu_mem double precision;
  ${['history_m5', 'history_h1']
    .map(
      (
        t,
      ) => `ALTER TABLE ${t} ADD COLUMN gpu_util double precision, ADD COLUMN gpu_util_x double precision,
    ADD COLUMN gpu_mem double precision, ADD COLUMN gpu_mem_x double precision;`,
    )
    .join('\n  ')}
  DROP INDEX history_raw_m_t;
  CREATE INDEX history_raw_m_t ON history_raw (m, t)
    INCLUDE (up, cpu, mem, load, disk, lat, bells, gpu_util, gpu_mem);
  `,
  // 3: the machine's network rates and its hottest temperature sensor (null where the agent
  // does not send them); the raw index is made again to carry them, as in 2.
  `
  ALTER TABLE history_raw ADD COLUMN net_rx double precision, ADD COLUMN net_tx double precision,
    ADD COLUMN temp_max double precision;
  ${['history_m5', 'history_h1']
    .map(
      (t) =>
        `ALTER TABLE ${t} ${['net_rx', 'net_rx_x', 'net_tx', 'net_tx_x', 'temp_max', 'temp_max_x']
          .map((c) => `ADD COLUMN ${c} double precision`)
          .join(', ')};`,
    )
    .join('\n  ')}
  DROP INDEX history_raw_m_t;
  CREATE INDEX history_raw_m_t ON history_raw (m, t)
    INCLUDE (up, cpu, mem, load, disk, lat, bells, gpu_util, gpu_mem, net_rx, net_tx, temp_max);
  `,
  // 4: the samples as scaled integers in narrow columns, t as seconds since T_EPOCH in an int4,
  // and the raw tier's index on (m, t) alone: a third of the bytes. Every row is copied over
  // with its conversion, in this migration's transaction: a large history takes a while (about
  // a minute per ten million rows), once, at the first start of this version.
  `
  ${narrowTier('history_raw', RAW_COLUMNS_4, 'm, t, up', 'm, (t - 1577836800)::int4, up')}
  CREATE INDEX history_raw_m_t ON history_raw (m, t);
  CREATE INDEX history_raw_t ON history_raw (t);
  ${['history_m5', 'history_h1']
    .map(
      (
        tier,
      ) => `${narrowTier(tier, AGGREGATE_COLUMNS_4, 'm, t, n, up', `m, (t - 1577836800)::int4, n, ${converted('up', 10_000, 'int2')}`)}
  CREATE UNIQUE INDEX ${tier}_m_t ON ${tier} (m, t);
  CREATE INDEX ${tier}_t ON ${tier} (t);`,
    )
    .join('\n  ')}
  `,
];

/** Where `t` counts from since migration 4: 2020-01-01 UTC (an int4 then reaches 2088). */
export const T_EPOCH = 1_577_836_800;

/** The integer type of each metric column since migration 4 (the maxima share it). */
export const COLUMN_TYPE: Readonly<Record<MetricColumn, 'int2' | 'int4' | 'int8'>> = {
  cpu: 'int2',
  mem: 'int2',
  load: 'int4',
  disk: 'int2',
  lat: 'int4',
  bells: 'int4',
  gpu_util: 'int2',
  gpu_mem: 'int2',
  net_rx: 'int8',
  net_tx: 'int8',
  temp_max: 'int2',
};

/** The largest value each integer type holds (a value beyond it is stored as this). */
export const TYPE_MAX = { int2: 32_767, int4: 2_147_483_647, int8: Number.MAX_SAFE_INTEGER };

/**
 * A tier's table made again with `columns` (name, scale, type; scale 0: copied as `keys` says)
 * and its rows copied over, converted. The old table and its indexes are dropped after the copy.
 */
function narrowTier(
  table: string,
  columns: readonly Column4[],
  keys: string,
  keyValues: string,
): string {
  const metrics = columns.filter(([, scale]) => scale > 0);
  return `ALTER TABLE ${table} RENAME TO ${table}_f8;
  DROP INDEX ${table}_m_t, ${table}_t;
  CREATE TABLE ${table} (${columns.map(([c, , ty]) => `${c} ${ty}`).join(', ')});
  INSERT INTO ${table} (${keys}, ${metrics.map(([c]) => c).join(', ')})
    SELECT ${keyValues}, ${metrics.map(([c, s, ty]) => converted(c, s, ty)).join(', ')}
    FROM ${table}_f8 ORDER BY t, m;
  DROP TABLE ${table}_f8;`;
}

/** An aggregate tier: one row per machine and bucket (unique: a bucket written twice merges). */
function aggregateTable(name: string): string {
  const metrics = ['cpu', 'mem', 'load', 'disk', 'lat', 'bells']
    .map((c) => `${c} double precision, ${c}_x double precision`)
    .join(',\n    ');
  return `CREATE TABLE ${name} (
    m integer NOT NULL,
    t bigint NOT NULL,
    n integer NOT NULL,
    up double precision NOT NULL,
    ${metrics}
  );
  CREATE UNIQUE INDEX ${name}_m_t ON ${name} (m, t);
  CREATE INDEX ${name}_t ON ${name} (t);`;
}
