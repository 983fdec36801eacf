import type pg from 'pg';

/**
 * One key for every Panoptes board's migrations: `pg_advisory_xact_lock` on it serialises two
 * boards that start at once (the second waits, then finds the work done).
 */
const MIGRATION_LOCK = 0x70616e6f; // "pano"

/**
 * How long a migration (and a second board waiting for its lock) may take: the pool's query
 * time-out is for a sweep's statements, and a migration copying a large history takes minutes.
 */
export const MIGRATION_TIMEOUT_MS = 6 * 3_600_000;

/**
 * Brings one part of the schema (`component`: "state", "history") to the last of `migrations`,
 * each applied once, in order, in one transaction with its version bump, under an advisory lock.
 * Never edit a migration that shipped: append one. A database whose version is newer than the
 * list was written by a newer Panoptes, and is refused rather than guessed at.
 */
export async function migrate(
  pool: pg.Pool,
  component: string,
  migrations: readonly string[],
): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(long('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]));
    await client.query(
      'CREATE TABLE IF NOT EXISTS panoptes_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL)',
    );
    const found = await client.query<{ version: number }>(
      'SELECT version FROM panoptes_schema WHERE component = $1',
      [component],
    );
    const version = found.rows[0]?.version ?? 0;
    if (version > migrations.length) {
      throw new Error(
        `the ${component} schema is at version ${version}, newer than this board knows (${migrations.length}): written by a newer Panoptes?`,
      );
    }
    for (let v = version; v < migrations.length; v += 1) {
      await client.query(long(migrations[v] ?? ''));
    }
    await client.query(
      `INSERT INTO panoptes_schema (component, version) VALUES ($1, $2)
       ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version`,
      [component, migrations.length],
    );
    await client.query('COMMIT');
    return migrations.length;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** A statement with the migrations' time-out (node-postgres takes it per query; its types do not say so). */
function long(text: string, values: unknown[] = []): pg.QueryConfig {
  const query: pg.QueryConfig & { query_timeout: number } = {
    text,
    values,
    query_timeout: MIGRATION_TIMEOUT_MS,
  };
  return query;
}
