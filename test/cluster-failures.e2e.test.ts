import { createServer, type Server } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { Receiver } from '../src/board/notify/channels/receivers.js';
import { overview } from './helpers/faulty-agents.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'cluster-fail-token-1f3b5d7a9c'; // secret-scan: token
const ROLE_PASSWORD = 'cluster-role-password-2a4c6e8b'; // secret-scan: token
const MACHINES = 30;
const FAILOVER_S = 6;
const IDS = ['a', 'b', 'c'] as const;

interface Sent {
  event: string;
  machine: string;
}

/**
 * Three real boards on one real PostgreSQL, notifying a local webhook: each down and each
 * recovery is sent once across the cluster, while all run, after PostgreSQL is restarted under
 * them, and while one board is cut off from the store (its database role refused and its
 * connections terminated), whose machines the others take over.
 */
describe('three boards: every event notified once, through failures', () => {
  const dir = tempDir('panoptes-cluster-fail-');
  const http = new Recorder();
  const hook = new Receiver();
  let server: PgServer;
  let agents: Server;
  const down = new Set<string>();
  const boards = new Map<string, RunningProgram>();

  const sent = (): Sent[] =>
    hook.requests.flatMap((r) =>
      (JSON.parse(r.body) as { events: Sent[] }).events.map((e) => ({
        event: e.event,
        machine: e.machine,
      })),
    );
  const count = (machine: string, event: string) =>
    sent().filter((e) => e.machine === machine && e.event === event).length;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server.url('cluster') });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const cluster = async (id: string) =>
    (
      (await http.call(`${boards.get(id)?.url}/api/cluster`, { token: TOKEN })).json as {
        boards: { id: string; alive: boolean; machines: number }[];
      }
    ).boards;
  /** Machines go down (or up again) and each event reaches the webhook, once. */
  const flip = async (names: string[], state: 'down' | 'up') => {
    for (const n of names) state === 'down' ? down.add(n) : down.delete(n);
    await eventually(
      async () => (names.every((n) => count(n, state) >= 1) ? true : undefined),
      `${state} sent for ${names.join(', ')}`,
      30_000,
    );
    // A few more sweeps, in case another board sends it too.
    await new Promise((r) => setTimeout(r, 2500));
    for (const n of names) expect(count(n, state), `${state} of ${n}`).toBe(1);
  };

  beforeAll(async () => {
    server = await startPostgres();
    await hook.start();
    agents = createServer((req, res) => {
      const machine = (req.url ?? '').split('/')[1] ?? '';
      if (down.has(machine)) {
        res.statusCode = 500;
        res.end('{"detail":"down"}');
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(overview(machine));
    });
    await new Promise<void>((r) => agents.listen(0, '127.0.0.1', r));
    await server.createDatabase('cluster');
    // One login role per board, acting as the owner of the tables, so one can be cut off alone.
    for (const id of IDS) {
      await admin(
        `CREATE ROLE board_${id} LOGIN PASSWORD '${ROLE_PASSWORD}' IN ROLE panoptes; ALTER ROLE board_${id} SET role = 'panoptes'`,
      );
    }
    const port = (agents.address() as { port: number }).port;
    for (const id of IDS) {
      const config = writeBoardConfig(dir, id, {
        board_token: TOKEN,
        board_id: id,
        failover_after: FAILOVER_S,
        sweep_interval: 0.5,
        history: false,
        store: `postgres://board_${id}:${ROLE_PASSWORD}@127.0.0.1:${server.port}/cluster`,
        machines: Array.from({ length: MACHINES }, (_, i) => ({
          name: `m${i}`,
          url: `http://127.0.0.1:${port}/m${i}`,
          key: `machine-key-${i}-0123456789`,
        })),
        notify: {
          channels: [{ name: 'hook', url: `http://127.0.0.1:${hook.port}/hook` }],
          rules: [{ events: ['down', 'up'], channels: ['hook'] }],
        },
      });
      boards.set(id, await startBoard(config));
    }
  }, 90_000);
  afterAll(async () => {
    for (const b of boards.values()) await b.stop().catch(() => undefined);
    await hook.stop();
    await new Promise((r) => agents?.close(r));
    server?.destroy();
    dir.cleanup();
  });

  it('sends each down and recovery once: steady, across a PostgreSQL restart, and with a board cut off', async () => {
    await eventually(
      async () => {
        const view = await cluster('a');
        return view.length === 3 && view.every((x) => x.alive) ? true : undefined;
      },
      'three live boards',
      30_000,
    );
    await new Promise((r) => setTimeout(r, 2000));
    expect(sent()).toEqual([]);

    // Steady state.
    await flip(['m0', 'm1', 'm2', 'm3', 'm4', 'm5'], 'down');
    await flip(['m0', 'm1', 'm2'], 'up');

    // PostgreSQL restarted under the running boards (shorter than failover_after).
    server.stop('fast');
    await new Promise((r) => setTimeout(r, 1500));
    server.start();
    await eventually(
      async () => {
        const view = await cluster('b');
        return view.every((x) => x.alive) ? true : undefined;
      },
      'the boards back on PostgreSQL',
      30_000,
    );
    await flip(['m6', 'm7', 'm8', 'm9'], 'down');
    await flip(['m3', 'm4', 'm5', 'm6'], 'up');

    // Two of c's machines go down (c sends it); after the failover below, their recovery is sent
    // by the board that took them over.
    const records = (await http.call(`${boards.get('a')?.url}/api/board`, { token: TOKEN }))
      .json as { machines: { name: string; board: string | null }[] };
    const ofC = records.machines
      .filter((m) => m.board === 'c' && !down.has(m.name) && Number(m.name.slice(1)) > 18)
      .map((m) => m.name)
      .slice(0, 2);
    expect(ofC).toHaveLength(2);
    await flip(ofC, 'down');

    // c cut off from the store: its role refused and its connections ended. The others mark it
    // dead and take its machines; c sends nothing meanwhile.
    await admin('ALTER ROLE board_c NOLOGIN');
    await admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'board_c'");
    await eventually(
      async () =>
        (await cluster('a')).find((x) => x.id === 'c')?.alive === false ? true : undefined,
      'c dead for a',
      30_000,
    );
    await new Promise((r) => setTimeout(r, 1500));
    await flip(['m10', 'm11', 'm12', 'm13', 'm14', 'm15'], 'down');
    await flip(['m7', 'm8', 'm10', 'm11', ...ofC], 'up');

    // c back: it takes up its place again, still one notification per event.
    await admin('ALTER ROLE board_c LOGIN');
    await eventually(
      async () =>
        (await cluster('a')).find((x) => x.id === 'c')?.alive === true ? true : undefined,
      'c alive again',
      30_000,
    );
    await new Promise((r) => setTimeout(r, 2000));
    await flip(['m16', 'm17', 'm18'], 'down');
    const total = sent().length;
    console.log(`cluster failures: ${total} events notified, ${hook.requests.length} messages`);
    // Every event seen was sent exactly once: no machine has two of one kind more than flipped.
    const seen = new Map<string, number>();
    for (const e of sent())
      seen.set(`${e.machine} ${e.event}`, (seen.get(`${e.machine} ${e.event}`) ?? 0) + 1);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
  }, 180_000);

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, ROLE_PASSWORD, server.password],
    dirs: [dir.path],
  }));
});
