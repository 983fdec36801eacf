import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type BoardApp, buildBoard } from '../src/board/app.js';
import { readBindings } from '../src/board/auth/roles.js';
import { boardSettings } from '../src/board/config/config.js';
import { createLogger } from '../src/shared/logger.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'cluster-sessions-token-5c7e9a1b3d'; // secret-scan: token
const VIEWER = [{ role: 'viewer' as const, selector: null }];

/** Two boards on one PostgreSQL (each in this process, on its own port, with its own caches). */
describe('two boards sharing sessions and tokens through PostgreSQL', () => {
  const dir = tempDir('panoptes-cluster-sessions-');
  let pg: PgServer;
  const boards: { b: BoardApp; url: string }[] = [];

  beforeAll(async () => {
    pg = await startPostgres();
    const store = await pg.createDatabase('sessions');
    for (const id of ['a', 'b']) {
      const b = await buildBoard({
        settings: boardSettings(
          {
            board_token: TOKEN,
            board_id: id,
            store,
            history: false,
            data_dir: `${dir.path}/${id}`,
          },
          '/etc/panoptes/board.yaml',
          null,
        ),
        logger: createLogger('board', 'silent'),
      });
      await b.app.listen({ host: '127.0.0.1', port: 0 });
      boards.push({ b, url: `http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}` });
    }
  }, 90_000);
  afterAll(async () => {
    for (const { b } of boards) await b.close().catch(() => undefined);
    pg?.destroy();
    dir.cleanup();
  });

  const status = async (url: string, headers: Record<string, string>) => {
    const r = await fetch(`${url}/api/me`, { headers });
    await r.arrayBuffer();
    return r.status;
  };
  /** How long until `url` refuses what `headers` carry (polled every 100 ms, at most 5 s). */
  const refusedWithin = async (url: string, headers: Record<string, string>) => {
    const started = Date.now();
    while (Date.now() - started < 5000) {
      if ((await status(url, headers)) === 401) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 100));
    }
    return Number.POSITIVE_INFINITY;
  };

  it('a session started on A works on B; signed out on A, B refuses it within 2.5 s', async () => {
    const [a, b] = boards as [(typeof boards)[0], (typeof boards)[0]];
    const secret = await a.b.access.sessions.start('kim', 'password', VIEWER);
    const cookie = { cookie: `panoptes=${secret}` };
    expect(await status(a.url, cookie)).toBe(200);
    expect(await status(b.url, cookie)).toBe(200); // B looked it up in the store (and caches it)
    const out = await fetch(`${a.url}/auth/logout`, {
      method: 'POST',
      headers: { ...cookie, origin: a.url },
    });
    expect(out.status).toBe(200);
    expect(await status(a.url, cookie)).toBe(401);
    expect(await refusedWithin(b.url, cookie)).toBeLessThan(2500);
  });

  it('a token deleted on A is refused on B within 2.5 s', async () => {
    const [a, b] = boards as [(typeof boards)[0], (typeof boards)[0]];
    const made = await a.b.access.tokens.create('ci', readBindings(VIEWER), null, null);
    const bearer = { authorization: `Bearer ${made.token}` };
    expect(await status(b.url, bearer)).toBe(200);
    expect(await a.b.access.tokens.remove(made.body.id)).not.toBeNull();
    expect(await status(a.url, bearer)).toBe(401);
    expect(await refusedWithin(b.url, bearer)).toBeLessThan(2500);
  });
});
