import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import {
  type FaultKind,
  type FaultyAgent,
  faults,
  httpAgent,
  overview,
  rssOf,
} from './helpers/faulty-agents.js';
import {
  closedPort,
  eventually,
  Recorder,
  writeAgentConfig,
  writeBoardConfig,
} from './helpers/fleet.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'faulty-board-token-2b4d6f8a0c1e';
const KEY = 'faulty-machine-key-3c5e7a9b1d2f';
const AGENT_TOKEN = 'faulty-agent-token-4d6f8b0c2e3a';
const SECRETS = [TOKEN, KEY, AGENT_TOKEN];

/** Seconds, as in board.yaml: a poll that never ends holds its sweep for POLL_TIMEOUT. */
const SWEEP_INTERVAL = 2;
const POLL_TIMEOUT = 1.5;

/** What each faulty machine must show on the board: down, with this error. */
const EXPECTED: Record<FaultKind | 'closed', string> = {
  silent: `no answer within ${POLL_TIMEOUT} s`,
  trickle: `no answer within ${POLL_TIMEOUT} s`,
  trickleBody: `no answer within ${POLL_TIMEOUT} s`,
  hundredMbDeclared: 'the answer is over 1 MiB',
  hundredMbChunked: 'the answer is over 1 MiB',
  hugeOverview: 'the answer is over 1 MiB',
  bigOverview: '',
  deepOverview: 'the answer is nested too deeply',
  invalidJson: 'the answer is not JSON',
  notAnObject: 'the answer is not an overview object',
  redirectLoop: 'the agent answered HTTP 302',
  resetMidBody: 'connection reset',
  closed: 'connection refused',
};

interface MachineJson {
  name: string;
  state: string;
  error: string | null;
  last_seen: string | null;
}
interface BoardJson {
  swept_at: string | null;
  machines: MachineJson[];
}

describe('faulty machines against a running board', () => {
  const dir = tempDir('panoptes-faulty-');
  const http = new Recorder();
  const fakes = new Map<string, FaultyAgent>();
  let agent: RunningProgram;
  let board: RunningProgram;
  let maxRss = 0;
  let sampler: NodeJS.Timeout | undefined;
  const view = async () =>
    (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as BoardJson;
  const machine = (v: BoardJson, name: string) => v.machines.find((m) => m.name === name);

  beforeAll(async () => {
    agent = await startAgent(
      writeAgentConfig(dir, 'good-agent', {
        name: 'good-agent',
        token: AGENT_TOKEN,
        board_key: KEY,
        data_dir: `${dir.path}/agent-data`,
        services: { backup: { start: ['true'], stop: ['true'], board: ['start'] } },
      }),
    );
    fakes.set('good-fake', await httpAgent((_req, res) => res.end(overview('good-fake'))));
    for (const kind of Object.keys(faults) as FaultKind[]) fakes.set(kind, await faults[kind]());
    const machines = [
      { name: 'good-agent', url: agent.url, key: KEY },
      ...[...fakes].map(([name, fake]) => ({ name, url: fake.url, key: KEY })),
      { name: 'closed', url: `http://127.0.0.1:${await closedPort()}`, key: KEY },
    ];
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        sweep_interval: SWEEP_INTERVAL,
        poll_timeout: POLL_TIMEOUT,
        machines,
      }),
    );
    sampler = setInterval(() => {
      rssOf(board.pid)
        .then((rss) => {
          maxRss = Math.max(maxRss, rss);
        })
        .catch(() => undefined);
    }, 100);
  });

  afterAll(async () => {
    clearInterval(sampler);
    await board?.stop();
    await agent?.stop();
    for (const fake of fakes.values()) await fake.close();
    dir.cleanup();
  });

  it('each faulty machine is down with a clear error; the good ones are up', async () => {
    const settled = await eventually(
      async () => {
        const v = await view();
        const wrong = Object.entries(EXPECTED).filter(([name, error]) => {
          const m = machine(v, name);
          return error === '' ? m?.state !== 'up' : m?.state !== 'down' || m.error !== error;
        });
        return wrong.length === 0 ? v : undefined;
      },
      'every faulty machine down with its error',
      30_000,
    );
    expect(machine(settled, 'good-agent')?.state).toBe('up');
    expect(machine(settled, 'good-fake')?.state).toBe('up');
    // The one near the cap was taken whole (and is served back).
    expect(machine(settled, 'bigOverview')?.state).toBe('up');
  });

  it('the good machines are swept on time while the faulty polls are still pending', async () => {
    // Three sweeps in a row: each time swept_at moves, the good machines were seen again in that
    // sweep, well before it ended: the silent machine held the sweep open for POLL_TIMEOUT,
    // the good ones were updated the moment their own poll ended.
    const seen: { sweptAt: number; good: number[] }[] = [];
    let last = (await view()).swept_at;
    while (seen.length < 3) {
      const v = await eventually(
        async () => {
          const now = await view();
          return now.swept_at !== last ? now : undefined;
        },
        'the next sweep',
        (SWEEP_INTERVAL + POLL_TIMEOUT) * 1000 * 3,
      );
      last = v.swept_at;
      seen.push({
        sweptAt: Date.parse(v.swept_at ?? ''),
        good: ['good-agent', 'good-fake'].map((n) => Date.parse(machine(v, n)?.last_seen ?? '')),
      });
    }
    for (const [i, sweep] of seen.entries()) {
      for (const goodSeen of sweep.good) {
        // Seen in this sweep (after the previous one ended) ...
        if (i > 0) expect(goodSeen).toBeGreaterThan(seen[i - 1]?.sweptAt ?? 0);
        // ... and long before it ended (generous: half the time-out the silent one held it).
        expect(sweep.sweptAt - goodSeen).toBeGreaterThanOrEqual((POLL_TIMEOUT * 1000) / 2);
      }
    }
    // The silent machines were asked every sweep, and are still down.
    expect(fakes.get('silent')?.hits()).toBeGreaterThanOrEqual(3);
    expect(fakes.get('hundredMbChunked')?.hits()).toBeGreaterThanOrEqual(3);
  });

  it('relays to faulty machines fail with 502/504 and a clear detail, within the time-out', async () => {
    const cases: [string, number, string][] = [
      ['silent', 504, `no answer within ${POLL_TIMEOUT} s`],
      ['trickleBody', 504, `no answer within ${POLL_TIMEOUT} s`],
      ['hundredMbDeclared', 502, 'the answer is over 1 MiB'],
      ['hundredMbChunked', 502, 'the answer is over 1 MiB'],
      ['deepOverview', 502, 'nested too deeply'],
      ['invalidJson', 502, 'is not JSON'],
      ['redirectLoop', 502, 'is not JSON'],
      ['resetMidBody', 502, 'connection reset'],
      ['closed', 502, 'connection refused'],
    ];
    await Promise.all(
      cases.map(async ([name, status, detail]) => {
        const r = await http.call(`${board.url}/api/do/${name}/backup/start`, {
          method: 'POST',
          token: TOKEN,
        });
        expect(r.status, name).toBe(status);
        expect((r.json as { detail: string }).detail, name).toContain(detail);
      }),
    );
    const good = await http.call(`${board.url}/api/do/good-agent/backup/start`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(good.status).toBe(200);
  });

  it('board memory stayed bounded throughout (100 MB answers never held)', async () => {
    // Let a few more sweeps of 100 MB answers go by while sampling.
    const before = (await view()).swept_at;
    await eventually(
      async () => ((await view()).swept_at !== before ? true : undefined),
      'a sweep',
      15_000,
    );
    expect(maxRss).toBeGreaterThan(0);
    expect(maxRss).toBeLessThan(300 * 1024 * 1024);
    expect(board.child.exitCode).toBeNull();
  });

  it('leaves no secret anywhere and logs no error', () => {
    expect(board.output.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
    expectNoSecrets({ secrets: SECRETS, recorders: [http], dirs: [dir.path] });
    console.log(`faulty machines: board max RSS ${Math.round(maxRss / 1024 / 1024)} MB`);
  });
});
