import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { Receiver } from '../src/board/notify/channels/receivers.js';
import { overview } from './helpers/faulty-agents.js';
import { blackHole, eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'cluster-deliv-token-3b5d7f9a1c'; // secret-scan: token
const MACHINES = 20;

/**
 * A board that dies while it delivers: another takes its claimed, unsent notifications over and
 * sends them, once. Board b's channel points at a server that never answers (its deliveries hang);
 * b is killed; a, which sees b dead, sends b's down through its own channel.
 */
describe("a dead board's unsent notifications are sent by another", () => {
  const dir = tempDir('panoptes-cluster-deliv-');
  const http = new Recorder();
  const hook = new Receiver();
  let pg: PgServer;
  let agents: Server;
  let hole: { url: string; close(): Promise<void> };
  const down = new Set<string>();
  const boards = new Map<string, RunningProgram>();

  beforeAll(async () => {
    pg = await startPostgres();
    await hook.start();
    hole = await blackHole();
    agents = createServer((req, res) => {
      const machine = (req.url ?? '').split('/')[1] ?? '';
      if (down.has(machine)) {
        res.statusCode = 500;
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(overview(machine));
    });
    await new Promise<void>((r) => agents.listen(0, '127.0.0.1', r));
    const port = (agents.address() as { port: number }).port;
    const store = await pg.createDatabase('deliveries');
    for (const id of ['a', 'b']) {
      boards.set(
        id,
        await startBoard(
          writeBoardConfig(dir, id, {
            board_token: TOKEN,
            board_id: id,
            failover_after: 2,
            sweep_interval: 0.5,
            history: false,
            store,
            machines: Array.from({ length: MACHINES }, (_, i) => ({
              name: `m${i}`,
              url: `http://127.0.0.1:${port}/m${i}`,
              key: `machine-key-${i}-0123456789`,
            })),
            notify: {
              // The same channel; b's address never answers.
              channels: [
                {
                  name: 'hook',
                  url: id === 'a' ? `http://127.0.0.1:${hook.port}/hook` : `${hole.url}/hook`,
                },
              ],
              rules: [{ events: ['down'], channels: ['hook'] }],
            },
          }),
        ),
      );
    }
  }, 60_000);
  afterAll(async () => {
    for (const b of boards.values()) await b.stop().catch(() => undefined);
    await hook.stop();
    await hole?.close();
    await new Promise((r) => agents?.close(r));
    pg?.destroy();
    dir.cleanup();
  });

  it('sends the down b claimed and could not deliver, once, after b is killed', async () => {
    const a = boards.get('a') as RunningProgram;
    const b = boards.get('b') as RunningProgram;
    const records = await eventually(async () => {
      const view = (await http.call(`${a.url}/api/board`, { token: TOKEN })).json as {
        machines: { name: string; board: string | null; state: string }[];
      };
      return view.machines.every((m) => m.state === 'up') &&
        view.machines.some((m) => m.board === 'b')
        ? view.machines
        : undefined;
    }, 'both boards polling');
    const ofB = records
      .filter((m) => m.board === 'b')
      .map((m) => m.name)
      .slice(0, 2);
    for (const name of ofB) down.add(name);
    // b sees them down, claims the message and hangs on its channel.
    await eventually(async () => {
      const view = (await http.call(`${b.url}/api/board`, { token: TOKEN })).json as {
        machines: { name: string; state: string }[];
      };
      return ofB.every((n) => view.machines.find((m) => m.name === n)?.state === 'down')
        ? true
        : undefined;
    }, 'b sees them down');
    await new Promise((r) => setTimeout(r, 1500));
    expect(hook.requests).toHaveLength(0);
    await b.kill9();
    const sent = () =>
      hook.requests.flatMap(
        (r) => (JSON.parse(r.body) as { events: { machine: string; event: string }[] }).events,
      );
    await eventually(
      async () => (ofB.every((n) => sent().some((e) => e.machine === n)) ? true : undefined),
      "b's downs sent by a",
      20_000,
    );
    await new Promise((r) => setTimeout(r, 3000));
    for (const n of ofB)
      expect(sent().filter((e) => e.machine === n && e.event === 'down')).toHaveLength(1);
  }, 60_000);

  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, pg.password], dirs: [dir.path] }));
});
