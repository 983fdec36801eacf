import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../../../../test/helpers/postgres.js';
import { openPool } from './connection.js';

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
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const client = await pool.connect();
      await client.query('BEGIN');
      // The server ends the connection while the board holds it between two statements (as a
      // transaction does between its awaits): node-postgres emits 'error' on the client, which
      // the pool listens to only while the client is idle.
      expect(await server.terminateConnections('cutoff')).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
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
});
