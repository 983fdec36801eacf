/**
 * The history tables in PostgreSQL, versioned by migrate.ts (component "history"). To change
 * the schema: append a migration and never edit one that shipped.
 *
 * Values are stored as double precision (not the libsql engine's scaled integers): PostgreSQL
 * gives every float8 its 8 bytes whatever its value, so scaling saves nothing unless the columns
 * shrink to int2/int4, and doubles answer the values exactly as written.
 */
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
];

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
