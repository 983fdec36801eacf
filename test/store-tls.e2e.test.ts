import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { runToExit, startBoard } from '../harness/processes.js';
import { makeTestCa } from './helpers/certs.js';
import { Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'store-tls-board-token-5e7a9c1b3d'; // secret-scan: token

/**
 * The board reaches PostgreSQL over TLS when `store` says so: `{url, ca}` verifies the server's
 * certificate against that CA (and its name); a certificate from another CA is refused at start,
 * with a message that names the store without its password.
 */
describe('the store over TLS to PostgreSQL', () => {
  const dir = tempDir('panoptes-store-tls-');
  const http = new Recorder();
  let server: PgServer;
  beforeAll(async () => {
    const ca = makeTestCa(dir, 'pgca');
    server = await startPostgres({ tls: ca.issue('pg') });
  }, 60_000);
  afterAll(() => {
    server?.destroy();
    dir.cleanup();
  });

  it('connects with the CA it is given, and every connection is encrypted', async () => {
    const ca = `${dir.path}/pgca.pem`;
    const url = await server.createDatabase('tls');
    const board = await startBoard(
      writeBoardConfig(dir, 'b', { board_token: TOKEN, store: { url, ca } }),
    );
    try {
      expect((await http.call(`${board.url}/api/journal`, { token: TOKEN })).status).toBe(200);
      const admin = new pg.Client({ connectionString: server.url('postgres') });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ n: string; encrypted: boolean | null }>(
          `SELECT count(*) AS n, bool_and(s.ssl) AS encrypted FROM pg_stat_ssl s
           JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'panoptes-board'`,
        );
        expect(Number(rows[0]?.n)).toBeGreaterThan(0);
        expect(rows[0]?.encrypted).toBe(true);
      } finally {
        await admin.end();
      }
    } finally {
      await board.stop();
    }
  });

  it('refuses a server whose certificate another CA signed, without showing the password', async () => {
    makeTestCa(dir, 'otherca');
    const url = await server.createDatabase('tls2');
    const configDir = writeBoardConfig(dir, 'wrong', {
      board_token: TOKEN,
      store: { url, ca: `${dir.path}/otherca.pem` },
    });
    const run = await runToExit('board', ['--config', configDir, '--port', '0'], {
      timeoutMs: 45_000,
    });
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('cannot open the store at postgres 127.0.0.1');
    expect(run.output).toContain("the server's TLS certificate is not trusted");
    expect(run.output).not.toContain(server.password);
  }, 60_000);

  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, server.password], dirs: [dir.path] }));
});
