import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../../../../harness/postgres.js';
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
});
