import { readFileSync } from 'node:fs';
import pg from 'pg';

export { describePostgres, postgresFailure } from './failure.js';

/** How the board reaches its PostgreSQL (from `store:` in board.yaml). */
export interface PostgresSettings {
  /** `postgres://user:pass@host:5432/db?sslmode=…` — a secret (it holds the password). */
  url: string;
  /** PEM file of the CA that signed the server's certificate (TLS with verification). */
  caFile?: string | null;
}

// BIGINT (int8) as a JS number: ms and ids stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (text: string) => Number(text));

/**
 * A pool of connections with time-outs everywhere: connecting (5 s), each statement (15 s),
 * and a lost server noticed by TCP keep-alive. A connection that breaks while idle is dropped
 * by the pool (the 'error' listener keeps it from crashing the process); the next query opens
 * a new one, so reconnecting needs nothing more.
 *
 * A connection that breaks while it is checked out (a transaction between two statements, or a
 * ROLLBACK under way when the server goes) emits 'error' too, and the pool listens only while a
 * connection is idle: every connection gets a listener of its own, or that 'error' would end
 * the process. Whoever holds it learns of the break from its next statement, which fails; the
 * pool drops a connection given back that can no longer be queried.
 */
export function openPool(settings: PostgresSettings, onIdleError: (error: Error) => void): pg.Pool {
  const pool = new pg.Pool({ ...clientOptions(settings), max: 8, idleTimeoutMillis: 30_000 });
  pool.on('error', onIdleError);
  pool.on('connect', (client) => client.on('error', ignoreWhileHeld));
  return pool;
}

/** Known through the failing statement; see openPool. */
function ignoreWhileHeld(): void {}

/** What every connection of the board uses: the URL, TLS with the CA, time-outs, its name. */
export function clientOptions(settings: PostgresSettings): pg.ClientConfig {
  const ca = settings.caFile ? readFileSync(settings.caFile, 'utf8') : null;
  return {
    connectionString: settings.url,
    ...(ca === null ? {} : { ssl: { ca, rejectUnauthorized: true } }),
    connectionTimeoutMillis: 5000,
    query_timeout: 15_000,
    keepAlive: true,
    application_name: 'panoptes-board',
  };
}
