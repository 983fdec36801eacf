import type { AddressInfo } from 'node:net';
import { type BoardApp, buildBoard } from '../../src/board/app.js';
import type { BindingView } from '../../src/board/auth/roles.js';
import { readBindings } from '../../src/board/auth/roles.js';
import { boardSettings } from '../../src/board/config/config.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { FakeClient, TOKEN } from './board-kit.js';
import type { TempDir } from './tmp.js';

/** Three configured machines with board labels: web1 and db1 in prod, web2 in dev. */
export const SCOPED_MACHINES = [
  { name: 'web1', url: 'http://127.0.0.1:1', key: 'web1-key-0123456789', labels: { env: 'prod' } },
  { name: 'web2', url: 'http://127.0.0.1:2', key: 'web2-key-0123456789', labels: { env: 'dev' } },
  { name: 'db1', url: 'http://127.0.0.1:3', key: 'db1-key-01234567890', labels: { env: 'prod' } },
];

export interface ScopedBoard {
  b: BoardApp;
  clock: ManualClock;
  client: FakeClient;
  url: string;
  /** A session for `person` with these bindings: its Cookie header (`__Host-` on HTTPS). */
  session(person: string, bindings: BindingView[]): Promise<string>;
  /** An API token with these bindings. */
  token(name: string, bindings: BindingView[]): Promise<string>;
  /** Every machine answers an overview (its sessions ringing), then one sweep. */
  sweep(cpu?: number): Promise<void>;
}

/** An in-process board on 127.0.0.1 (real HTTP), a manual clock and scripted agents. */
export async function scopedBoard(dir: TempDir, extra: Record<string, unknown> = {}) {
  const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
  const client = new FakeClient();
  const b = await buildBoard({
    settings: boardSettings(
      {
        board_token: TOKEN,
        data_dir: dir.path,
        machines: SCOPED_MACHINES,
        groups: [{ name: 'All', selector: 'env' }],
        ...extra,
      },
      '/etc/panoptes/board.yaml',
      null,
    ),
    logger: createLogger('board', 'silent'),
    clock,
    client,
  });
  await b.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = b.app.server.address() as AddressInfo;
  const board: ScopedBoard = {
    b,
    clock,
    client,
    url: `${extra.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    session: async (person, bindings) => {
      await b.access.people.put({
        name: person,
        source: 'local',
        bindings,
        created_at: clock.now(),
        signed_in_at: null,
      });
      const secret = await b.access.sessions.start(person, 'password', bindings);
      return `${extra.tls === undefined ? 'panoptes' : '__Host-panoptes'}=${secret}`;
    },
    token: async (name, bindings) =>
      (await b.access.tokens.create(name, readBindings(bindings), null, null)).token,
    sweep: async (cpu = 0.25) => {
      for (const m of SCOPED_MACHINES) {
        client.overviews.set(m.url, {
          ok: true,
          overview: {
            cpu_use: cpu,
            sessions: [
              { session: `${m.name}-job`, why: 'attention', text: 'x', at: '2026-03-01T00:00:00Z' },
            ],
          },
          latencyMs: 5,
        });
      }
      clock.advance(5000);
      await b.board.sweep();
      await b.history?.recorder.settled();
    },
  };
  return board;
}
