import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { overview } from './helpers/faulty-agents.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'cluster-poll-token-8c0e2a4b6d'; // secret-scan: token
const MACHINES = 60;
const SWEEP_S = 0.5;
const FAILOVER_S = 2;

interface Record_ {
  name: string;
  state: string;
  board: string | null;
}

/**
 * Three real boards on one real PostgreSQL, polling 60 stand-in agents that count who polls
 * them: each machine is polled by exactly one live board in steady state; every board shows
 * every machine up, with the board that polled it; kill -9 of a board moves its machines to the
 * others within failover_after + one sweep, none marked down meanwhile.
 */
describe('three boards on one PostgreSQL share the polling and the view', () => {
  const dir = tempDir('panoptes-cluster-poll-');
  const http = new Recorder();
  let pg: PgServer;
  let agents: Server;
  /** Polls per machine, per board (the board's id is in the URL it polls). */
  const polls = new Map<string, Map<string, number>>();
  /** When each board polled each machine (ms since the epoch), for the failure message. */
  const pollTimes = new Map<string, number[]>();
  const boards: RunningProgram[] = [];

  beforeAll(async () => {
    pg = await startPostgres();
    agents = createServer((req, res) => {
      // /<board>/<machine>/api/overview: each board is configured with its own URL prefix, so
      // a poll says which board made it.
      const [, board = '', machine = ''] = (req.url ?? '').split('/');
      const mine = polls.get(machine) ?? new Map<string, number>();
      mine.set(board, (mine.get(board) ?? 0) + 1);
      polls.set(machine, mine);
      const key = `${machine} ${board}`;
      const times = pollTimes.get(key) ?? [];
      times.push(Date.now());
      pollTimes.set(key, times);
      res.setHeader('content-type', 'application/json');
      res.end(overview(machine));
    });
    await new Promise<void>((r) => agents.listen(0, '127.0.0.1', r));
  }, 60_000);
  afterAll(async () => {
    for (const b of boards) await b.stop().catch(() => undefined);
    await new Promise((r) => agents?.close(r));
    pg?.destroy();
    dir.cleanup();
  });

  const view = async (b: RunningProgram) =>
    ((await http.call(`${b.url}/api/board`, { token: TOKEN })).json as { machines: Record_[] })
      .machines;
  const countPolls = () => {
    const totals = new Map<string, number>();
    for (const [machine, byBoard] of polls) {
      totals.set(
        machine,
        [...byBoard.values()].reduce((a, b) => a + b, 0),
      );
    }
    return totals;
  };

  it('one poll per machine per sweep, one view everywhere, and a failover within failover_after + 1 sweep', async () => {
    const port = (agents.address() as { port: number }).port;
    const store = await pg.createDatabase('cluster');
    for (const id of ['a', 'b', 'c']) {
      boards.push(
        await startBoard(
          writeBoardConfig(dir, id, {
            board_token: TOKEN,
            board_id: id,
            failover_after: FAILOVER_S,
            sweep_interval: SWEEP_S,
            store,
            machines: Array.from({ length: MACHINES }, (_, i) => ({
              name: `m${i}`,
              url: `http://127.0.0.1:${port}/${id}/m${i}`,
              key: `machine-key-${i}-0123456789`,
            })),
          }),
        ),
      );
    }
    const [a, b, c] = boards as [RunningProgram, RunningProgram, RunningProgram];
    // All three see each other, and every board shows every machine up.
    for (const board of boards) {
      await eventually(
        async () => {
          const machines = await view(board);
          return machines.length === MACHINES && machines.every((m) => m.state === 'up')
            ? true
            : undefined;
        },
        'every machine up on every board',
        30_000,
      );
    }
    // Steady state: count polls over a few sweeps; each machine is polled by one board only.
    await new Promise((r) => setTimeout(r, 3 * FAILOVER_S * 1000));
    polls.clear();
    pollTimes.clear();
    const window = 4000;
    const windowAt = Date.now();
    await new Promise((r) => setTimeout(r, window));
    const pollers = new Map<string, string[]>();
    for (const [machine, byBoard] of polls) pollers.set(machine, [...byBoard.keys()]);
    expect(pollers.size).toBe(MACHINES);
    const doubled = [...pollers.values()].filter((ids) => ids.length > 1).length;
    if (doubled > 0) {
      // What each board saw of the cluster, and when each board polled the machines polled
      // twice (ms into the window): a failover in the window, or two owners at once?
      const seen = await Promise.all(
        boards.map(async (bd) => (await http.call(`${bd.url}/api/cluster`, { token: TOKEN })).json),
      );
      const times = [...pollTimes]
        .filter(([key]) => (pollers.get(key.split(' ')[0] ?? '')?.length ?? 0) > 1)
        .map(([key, at]) => `${key}: ${at.map((t) => t - windowAt).join(',')}`);
      console.log(`cluster: ${doubled} polled twice\n${JSON.stringify(seen)}\n${times.join('\n')}`);
    }
    expect(doubled).toBe(0);
    const sweeps = window / 1000 / SWEEP_S;
    for (const n of countPolls().values()) expect(n).toBeLessThanOrEqual(sweeps + 1);
    const share = ['a', 'b', 'c'].map(
      (id) => [...pollers.values()].filter((ids) => ids[0] === id).length,
    );
    console.log(`cluster: machines per board a/b/c ${share.join('/')}`);
    for (const n of share) expect(n).toBeGreaterThan(0);
    // One view: a's records say which board polled each machine, the same as b's and c's.
    const onA = await view(a);
    const onC = await view(c);
    for (const m of onA) {
      expect(m.board).toBe(pollers.get(m.name)?.[0]);
      expect(onC.find((x) => x.name === m.name)?.board).toBe(m.board);
    }

    // History of every machine on every board: each machine's owner records it, once.
    const ofC = onA.find((m) => m.board === 'c')?.name ?? '';
    const events = (await http.call(`${a.url}/api/machines/${ofC}/events`, { token: TOKEN }))
      .json as { events: { state: string }[] };
    expect(events.events.map((e) => e.state)).toEqual(['up']);
    const uptime = (await http.call(`${b.url}/api/uptime`, { token: TOKEN })).json as {
      machines: { name: string; '24h': number | null }[];
    };
    expect(uptime.machines).toHaveLength(MACHINES);
    expect(uptime.machines.every((m) => m['24h'] !== null)).toBe(true);

    // kill -9 of b: its machines are polled again by a or c within failover_after + 1 sweep,
    // and none is shown down meanwhile.
    const bMachines = [...pollers].filter(([, ids]) => ids[0] === 'b').map(([m]) => m);
    polls.clear();
    await b.kill9();
    const killedAt = Date.now();
    let down = 0;
    const watch = setInterval(() => {
      view(a)
        .then((machines) => {
          down += machines.filter((m) => m.state !== 'up').length;
        })
        .catch(() => undefined);
    }, 200);
    try {
      await eventually(
        async () =>
          bMachines.every((m) => [...(polls.get(m)?.keys() ?? [])].some((id) => id !== 'b'))
            ? true
            : undefined,
        "b's machines polled by a or c",
        30_000,
      );
    } finally {
      clearInterval(watch);
    }
    const failoverMs = Date.now() - killedAt;
    console.log(
      `cluster: kill -9 of b → its ${bMachines.length} machines polled again after ${failoverMs} ms (failover_after ${FAILOVER_S} s, sweep ${SWEEP_S} s)`,
    );
    expect(down).toBe(0);
    // After the failover, still one poller per machine.
    await new Promise((r) => setTimeout(r, 2000));
    polls.clear();
    await new Promise((r) => setTimeout(r, 3000));
    expect([...polls.values()].filter((byBoard) => byBoard.size > 1)).toHaveLength(0);
    expect(polls.size).toBe(MACHINES);
    expect(((await view(c)).find((m) => bMachines.includes(m.name))?.board ?? 'b') !== 'b').toBe(
      true,
    );
  }, 120_000);

  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, pg.password], dirs: [dir.path] }));
});
