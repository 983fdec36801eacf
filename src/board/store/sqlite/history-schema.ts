import type Database from 'libsql';

/**
 * The history file's schema, versioned with PRAGMA user_version. To change it: append a
 * migration to MIGRATIONS (it runs once, in the same transaction as the version bump, on the
 * first start of the new version) and never edit one that shipped. A file whose version is newer
 * than the last migration was written by a newer Panoptes: the board refuses it (history off,
 * live view on) rather than guess.
 *
 * Values are stored as scaled integers (SQLite keeps small integers in 1–3 bytes, a REAL in 8):
 * shares (up, cpu, mem, disk, gpu_util, gpu_mem) × 10,000, load and bells × 100, latency × 10
 * (0.1 ms), temp_max × 10 (0.1 °C), net_rx and net_tx as they are (whole bytes a second).
 */
export const MIGRATIONS: readonly string[] = [
  // 1: machines (an id per name: a name forgotten and seen again is a new machine), state
  // changes, raw sweeps and two aggregate tiers. Rows are appended in time order, so rowid order
  // is age order: pruning deletes the first rows by rowid, a bounded number at a time.
  `
  CREATE TABLE machines (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE,
    first_seen INTEGER);
  CREATE TABLE forgotten (id INTEGER PRIMARY KEY);
  CREATE TABLE events (m INTEGER NOT NULL, at INTEGER NOT NULL, state INTEGER NOT NULL,
    previous INTEGER, reason TEXT);
  CREATE INDEX events_m_at ON events (m, at);
  CREATE INDEX events_at ON events (at);
  CREATE TABLE raw (m INTEGER NOT NULL, t INTEGER NOT NULL, up INTEGER NOT NULL, cpu INTEGER,
    mem INTEGER, load INTEGER, disk INTEGER, lat INTEGER, bells INTEGER);
  CREATE INDEX raw_m_t ON raw (m, t);
  ${aggregateTable('m5')}
  ${aggregateTable('h1')}
  `,
  // 2: one machine's raw sweeps read from the index alone. With 10,000 machines a sweep's rows
  // lie side by side in the table, so a day of one machine (17,280 rows) was 17,280 page reads;
  // in an index on every column its rows are contiguous (a few hundred pages). Costs about half
  // again the raw tier's bytes. On a large file this step takes a while, once, at start.
  `
  CREATE INDEX raw_m_t_all ON raw (m, t, up, cpu, mem, load, disk, lat, bells);
  DROP INDEX raw_m_t;
  `,
  // 3: the busiest GPU's share busy and memory share (null on machines without GPUs, which
  // SQLite stores in no bytes beyond the record header's). The covering index is made again
  // with the two columns, so that a machine's day is still read from the index alone.
  `
  ALTER TABLE raw ADD COLUMN gpu_util INTEGER;
  ALTER TABLE raw ADD COLUMN gpu_mem INTEGER;
  ${['m5', 'h1'].map((t) => ['gpu_util', 'gpu_util_x', 'gpu_mem', 'gpu_mem_x'].map((c) => `ALTER TABLE ${t} ADD COLUMN ${c} INTEGER;`).join('\n  ')).join('\n  ')}
  DROP INDEX raw_m_t_all;
  CREATE INDEX raw_m_t_all ON raw (m, t, up, cpu, mem, load, disk, lat, bells, gpu_util, gpu_mem);
  `,
  // 4: the machine's network rates and its hottest temperature sensor (null where the agent
  // does not send them). The covering index is made again with them, as in 3.
  `
  ${['net_rx', 'net_tx', 'temp_max'].map((c) => `ALTER TABLE raw ADD COLUMN ${c} INTEGER;`).join('\n  ')}
  ${['m5', 'h1'].map((t) => ['net_rx', 'net_rx_x', 'net_tx', 'net_tx_x', 'temp_max', 'temp_max_x'].map((c) => `ALTER TABLE ${t} ADD COLUMN ${c} INTEGER;`).join('\n  ')).join('\n  ')}
  DROP INDEX raw_m_t_all;
  CREATE INDEX raw_m_t_all ON raw (m, t, up, cpu, mem, load, disk, lat, bells, gpu_util, gpu_mem,
    net_rx, net_tx, temp_max);
  `,
];

function aggregateTable(name: string): string {
  return `CREATE TABLE ${name} (m INTEGER NOT NULL, t INTEGER NOT NULL, n INTEGER NOT NULL,
    up INTEGER NOT NULL, cpu INTEGER, cpu_x INTEGER, mem INTEGER, mem_x INTEGER, load INTEGER,
    load_x INTEGER, disk INTEGER, disk_x INTEGER, lat INTEGER, lat_x INTEGER, bells INTEGER,
    bells_x INTEGER);
  CREATE UNIQUE INDEX ${name}_m_t ON ${name} (m, t);`;
}

/** Brings the file to the current version (or throws, naming the problem). */
export function migrate(db: Database.Database): number {
  const row = db.prepare('PRAGMA user_version').raw(true).get();
  const version = Array.isArray(row) ? Number(row[0]) : Number.NaN;
  if (!Number.isSafeInteger(version) || version > MIGRATIONS.length) {
    throw new Error(
      `history.db has schema version ${String(version)}, newer than this board knows (${MIGRATIONS.length}): written by a newer Panoptes?`,
    );
  }
  for (let v = version; v < MIGRATIONS.length; v += 1) {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(MIGRATIONS[v] ?? '');
      db.exec(`PRAGMA user_version = ${v + 1}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
  return MIGRATIONS.length;
}
