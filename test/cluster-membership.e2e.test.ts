import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../harness/browser.js';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { startBoard } from '../harness/processes.js';
import { openBoard, watchedPage } from './helpers/browser.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'cluster-board-token-6a8c0e2b4d'; // secret-scan: token
const REGISTRATION = 'cluster-registration-7b9d1f3c5e'; // secret-scan: token

interface ClusterView {
  self: string;
  boards: { id: string; alive: boolean; seen_at: string; machines: number }[];
}

/**
 * DESIGN section 9's contract, the part that exists so far: `board_id`, `failover_after`,
 * heartbeats in the store, GET /api/cluster, and the `board` member of records and journal
 * entries. (Sharing the polling and one view across boards are not built yet: docs/cluster.md.)
 */
describe('boards on one store: heartbeats and GET /api/cluster', () => {
  const dir = tempDir('panoptes-cluster-');
  const http = new Recorder();
  let pg: PgServer;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => {
    pg?.destroy();
    dir.cleanup();
  });
  const cluster = async (url: string) =>
    (await http.call(`${url}/api/cluster`, { token: TOKEN })).json as ClusterView;

  it('a single board lists itself, with its configured machines; the token rule holds', async () => {
    const board = await startBoard(
      writeBoardConfig(dir, 'single', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        board_id: 'solo:8700',
        machines: [{ name: 'web1', url: 'http://127.0.0.1:1', key: 'web1-machine-key-0123456789' }],
      }),
    );
    try {
      const view = await cluster(board.url);
      expect(view.self).toBe('solo:8700');
      expect(view.boards).toHaveLength(1);
      expect(view.boards[0]).toMatchObject({ id: 'solo:8700', alive: true, machines: 1 });
      expect(Number.isFinite(Date.parse(view.boards[0]?.seen_at ?? ''))).toBe(true);
      expect((await http.call(`${board.url}/api/cluster`)).status).toBe(401);
      expect((await http.call(`${board.url}/api/cluster`, { token: REGISTRATION })).status).toBe(
        403,
      );
    } finally {
      await board.stop();
    }
  });

  it('two boards on one PostgreSQL see each other; one killed is marked dead after failover_after', async () => {
    const store = await pg.createDatabase('pair');
    const config = (id: string) =>
      writeBoardConfig(dir, id, {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        board_id: id,
        failover_after: 2,
        store,
      });
    const a = await startBoard(config('a'));
    const b = await startBoard(config('b'));
    try {
      await eventually(async () => {
        const view = await cluster(a.url);
        return view.boards.length === 2 && view.boards.every((x) => x.alive) ? true : undefined;
      }, 'a sees a and b alive');
      expect((await cluster(b.url)).boards.map((x) => x.id)).toEqual(['a', 'b']);

      // Records and journal entries carry the board that made them.
      const report = await http.call(`${b.url}/api/report`, {
        method: 'POST',
        token: REGISTRATION,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'lab1', location: 'http://127.0.0.1:1/lab1' }),
      });
      expect(report.status).toBe(200);
      const view = (await http.call(`${b.url}/api/board`, { token: TOKEN })).json as {
        machines: { name: string; board: string | null }[];
      };
      expect(view.machines.find((m) => m.name === 'lab1')?.board).toBe('b');
      const entries = await eventually(async () => {
        const page = (await http.call(`${b.url}/api/journal`, { token: TOKEN })).json as {
          entries: { op: string; board?: string }[];
        };
        return page.entries.some((e) => e.op === 'announce') ? page.entries : undefined;
      }, 'the announcement journaled');
      expect(entries.find((e) => e.op === 'announce')?.board).toBe('b');

      // The page shows both boards, then marks the one killed.
      const browser = await launchBrowser();
      try {
        const watched = await watchedPage(await browser.newContext());
        const { page } = watched;
        await openBoard(page, a.url, TOKEN);
        const line = page.getByTestId('cluster');
        // The page reads /api/cluster every 5 s: on a loaded machine its first answer may come
        // late, or find a heartbeat past failover_after (2 s) for a moment. expect.poll's own
        // time-out (1 s) is shorter than one refresh.
        await expect
          .poll(() => line.locator('[data-alive="true"]').count(), { timeout: 15_000 })
          .toBe(2);

        await b.kill9();
        await eventually(async () => {
          const after = await cluster(a.url);
          return after.boards.find((x) => x.id === 'b')?.alive === false ? true : undefined;
        }, 'b marked dead');
        expect((await cluster(a.url)).boards.find((x) => x.id === 'a')?.alive).toBe(true);
        await expect
          .poll(() => line.locator('[data-alive="false"]').textContent(), { timeout: 20_000 })
          .toContain('b');
        await watched.expectClean();
      } finally {
        await browser.close();
      }
    } finally {
      await a.stop();
    }
  }, 60_000);

  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION, pg.password], dirs: [dir.path] }));
});
