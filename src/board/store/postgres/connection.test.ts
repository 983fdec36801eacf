import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../../../../harness/postgres.js';
import { openPool } from './connection.js';
import { migrate } from './migrate.js';

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(() => server?.destroy());

describe('the pool of the board (a real PostgreSQL)', () => {
  it('a connection cut off while it is checked out and between statements does not crash the board', async () => {
    const url = await server.createDatabase('cutoff');
    const pool = openPool({ url }, () => undefined);
    const uncaught: unknown[] = [];
    let crashed: (error: unknown) => void = () => undefined;
    const crash = new Promise((resolve) => {
      crashed = resolve;
    });
    const onUncaught = (error: unknown) => {
      uncaught.push(error);
      crashed(error);
    };
    process.on('uncaughtException', onUncaught);
    try {
      const client = await pool.connect();
      await client.query('BEGIN');
      // The server ends the connection while the board holds it between two statements (as a
      // transaction does between its awaits): node-postgres emits 'error' on the client, which
      // the pool listens to only while the client is idle.
      // Waits for the connection's end, or for the uncaught error that would have ended the
      // process (it also stops node-postgres before its 'end'). Not events.once: it rejects on
      // the 'error' that comes first.
      const ended = new Promise((resolve) => client.once('end', resolve));
      expect(await server.terminateConnections('cutoff')).toBe(1);
      await Promise.race([ended, crash]);
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release();
      expect(uncaught).toEqual([]);
      // Given back without a word (as the stores' transactions do), it is dropped all the same:
      // the next statement opens a new connection.
      expect(pool.totalCount).toBe(0);
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await pool.end();
    }
  });

  it('lets a migration, and a board waiting for it, run past the query time-out', async () => {
    const url = await server.createDatabase('slow');
    // Pools whose query time-out is shorter than the migration, as a sweep's is shorter than
    // copying a large history.
    const pool = new pg.Pool({ connectionString: url, query_timeout: 300 });
    const other = new pg.Pool({ connectionString: url, query_timeout: 300 });
    await expect(pool.query('SELECT pg_sleep(1)')).rejects.toThrow(/timeout/i);
    const slow = ['SELECT pg_sleep(1); CREATE TABLE slow_done (x int)'];
    try {
      const [a, b] = await Promise.all([migrate(pool, 'slow', slow), migrate(other, 'slow', slow)]);
      expect([a, b]).toEqual([1, 1]);
      expect((await pool.query('SELECT count(*)::int AS n FROM slow_done')).rows).toEqual([
        { n: 0 },
      ]);
    } finally {
      await Promise.all([pool.end(), other.end()]);
    }
  });
});
