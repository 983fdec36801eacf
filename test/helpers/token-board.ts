import { Writable } from 'node:stream';
import { type BoardApp, buildBoard } from '../../src/board/app.js';
import { boardSettings } from '../../src/board/config/config.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { FakeClient } from './board-kit.js';
import { type TempDir, tempDir } from './tmp.js';

export const BOARD_TOKEN = 'tokens-board-token-5d0c7a93e1f2'; // secret-scan: token
export const REGISTRATION = 'tokens-registration-9a8b7c6d5e4f'; // secret-scan: token
export const WEB1 = 'http://web1.test:8701';
export const DB1 = 'http://db1.test:8701';

/** An overview with one session waiting for a person. */
const overview = (session: string) => ({
  cpu_use: 0.25,
  memory: { total: 1000, used: 250 },
  load: [1, 1, 1],
  disks: [{ path: '/', total: 100, used: 40 }],
  sessions: [{ session, why: 'attention', text: 'Which branch?', at: '2026-03-01T00:00:00Z' }],
});

/**
 * An in-process board listening on 127.0.0.1 (real HTTP), on a manual clock, with web1 in
 * env=prod and db1 in env=staging (board labels), each with a session waiting, relays
 * answered by a scripted client, and every log line it writes kept (at debug level).
 */
export interface TokenBoard {
  b: BoardApp;
  url: string;
  clock: ManualClock;
  client: FakeClient;
  logs: string[];
  dir: TempDir;
  /** fetch on the board with a Bearer token (or none), a JSON body when given. */
  call(
    path: string,
    init?: {
      method?: string;
      token?: string | null;
      body?: unknown;
      headers?: Record<string, string>;
    },
  ): Promise<{ status: number; json: unknown; text: string }>;
  close(): Promise<void>;
}

export async function startTokenBoard(): Promise<TokenBoard> {
  const dir = tempDir('panoptes-tokens-');
  const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
  const client = new FakeClient();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(
        ...String(chunk)
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  const b = await buildBoard({
    settings: boardSettings(
      {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        data_dir: dir.path,
        history: false,
        machines: [
          { name: 'web1', url: WEB1, key: 'web1-key-0123456789abc', labels: { env: 'prod' } },
          { name: 'db1', url: DB1, key: 'db1-key-0123456789abcd', labels: { env: 'staging' } },
        ],
      },
      `${dir.path}/board.yaml`,
      null,
    ),
    logger: createLogger('board', 'debug', sink as never),
    clock,
    client,
  });
  client.overviews.set(WEB1, { ok: true, overview: overview('build'), latencyMs: 5 });
  client.overviews.set(DB1, { ok: true, overview: overview('migrate'), latencyMs: 5 });
  client.answers.set(WEB1, { kind: 'answer', status: 200, body: { ok: true } });
  client.answers.set(DB1, { kind: 'answer', status: 200, body: { ok: true } });
  clock.advance(1000);
  await b.board.sweep();
  const address = await b.app.listen({ host: '127.0.0.1', port: 0 });
  const url = address.replace('localhost', '127.0.0.1');
  return {
    b,
    url,
    clock,
    client,
    logs,
    dir,
    async call(path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      const token = init.token === undefined ? BOARD_TOKEN : init.token;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      const r = await fetch(`${url}${path}`, {
        method: init.method ?? 'GET',
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      const text = await r.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
      return { status: r.status, json, text };
    },
    async close() {
      await b.close();
      dir.cleanup();
    },
  };
}
