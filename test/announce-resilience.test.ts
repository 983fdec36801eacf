import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'announce-hard-board-token-2c4e6a8c';
const REGISTRATION = 'announce-hard-registration-3d5f7b9d';
const AGENT_TOKEN = 'announce-hard-agent-token-4e6a8c0e';

/** Seconds: the agent reports every REPORT_INTERVAL; the board calls it down after STALE_AFTER. */
const REPORT_INTERVAL = 0.3;
const STALE_AFTER = 2;

/**
 * A TCP relay between the agent and the board that can go half-open: the connections it holds
 * stop carrying anything, in either direction, and are never closed (a NAT that forgot them).
 */
async function relay(target: number): Promise<{
  url: string;
  freeze(): void;
  frozen(): number;
  close(): Promise<void>;
}> {
  const pairs = new Set<{ client: Socket; upstream: Socket; frozen: boolean }>();
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(target, '127.0.0.1');
    const pair = { client, upstream, frozen: false };
    pairs.add(pair);
    client.on('data', (d) => {
      if (!pair.frozen) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!pair.frozen) client.write(d);
    });
    const end = () => {
      if (pair.frozen) return; // half-open: the other side never hears of it
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    freeze: () => {
      for (const p of pairs) p.frozen = true;
    },
    frozen: () => [...pairs].filter((p) => p.frozen).length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const p of pairs) {
          p.client.destroy();
          p.upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

interface Machine {
  name: string;
  state: string;
  last_seen: string | null;
  error: string | null;
}

describe('announced machines: no flapping, reconnecting after a half-open connection, never silently forgotten', () => {
  const dir = tempDir('panoptes-announce-hard-');
  const http = new Recorder();
  let board: RunningProgram;
  let agent: RunningProgram;
  let link: Awaited<ReturnType<typeof relay>>;
  /** Every state the live feed showed for the agent's machine, in order. */
  const states: string[] = [];
  let live: WebSocket;
  const lab = async () =>
    (
      (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as { machines: Machine[] }
    ).machines.find((m) => m.name === 'lab');

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        stale_after: STALE_AFTER,
      }),
    );
    link = await relay(Number(new URL(board.url).port));
    live = new WebSocket(`${board.url.replace('http', 'ws')}/api/live?token=${TOKEN}`);
    live.on('message', (data) => {
      const m = JSON.parse(String(data)) as { type: string; machine?: Machine };
      if (m.type === 'machine' && m.machine?.name === 'lab') states.push(m.machine.state);
    });
    await new Promise((resolve) => live.once('open', resolve));
    agent = await startAgent(
      writeAgentConfig(dir, 'lab', {
        name: 'lab',
        token: AGENT_TOKEN,
        data_dir: `${dir.path}/agent-data`,
        report: { board: link.url, token: REGISTRATION, interval: REPORT_INTERVAL },
      }),
    );
  });
  afterAll(async () => {
    live?.close();
    await agent?.stop();
    await link?.close();
    await board?.stop();
    dir.cleanup();
  });

  it(`reporting every ${REPORT_INTERVAL} s with stale_after ${STALE_AFTER} s, it never flaps down`, async () => {
    await eventually(async () => ((await lab())?.state === 'up' ? true : undefined), 'lab up');
    const seen = new Set<string>();
    // Three times stale_after, looking all along.
    const until = Date.now() + STALE_AFTER * 3 * 1000;
    while (Date.now() < until) {
      const m = await lab();
      expect(m?.state).toBe('up');
      seen.add(m?.last_seen ?? '');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen.size).toBeGreaterThan(5);
    expect(states.filter((s) => s === 'down')).toEqual([]);
  });

  it('after its connection to the board goes half-open, it reconnects by itself and reports again', async () => {
    const from = agent.output.length;
    link.freeze();
    expect(link.frozen()).toBeGreaterThan(0);
    // The board view coalesces report refreshes (up to 250 ms): read "before" once the last
    // report that got through before the freeze is surely in it.
    await new Promise((r) => setTimeout(r, 600));
    const before = (await lab())?.last_seen ?? '';
    // The frozen connection carries nothing; the agent's report on it times out (2 s for a short
    // interval), it backs off, and a new connection works. Generous: stale_after, the report
    // time-out and a few back-offs.
    const again = await eventually(
      async () => {
        const m = await lab();
        return m !== undefined && m.state === 'up' && (m.last_seen ?? '') > before ? m : undefined;
      },
      'a report over a new connection',
      30_000,
    );
    expect(again.state).toBe('up');
    // The board shows the report before the agent has its answer and logs it, the agent's output
    // reaches this test through a pipe, and on a busy machine "before" may have been read ahead
    // of the last report that got through before the freeze: wait for the line, as long as for
    // the report itself, rather than race it.
    await eventually(
      async () =>
        agent.output.slice(from).some((l) => l.includes('board reachable again'))
          ? true
          : undefined,
      "the agent's 'board reachable again'",
      30_000,
    );
    expect(agent.output.slice(from).some((l) => l.includes('report failed; backing off'))).toBe(
      true,
    );
  });

  it('a stopped machine goes down once, stays listed and red, and leaves only when a person removes it', async () => {
    await agent.stop();
    const down = await eventually(
      async () => {
        const m = await lab();
        return m?.state === 'down' ? m : undefined;
      },
      'lab down',
      STALE_AFTER * 1000 + 10_000,
    );
    expect(down.error).toMatch(/^no report for \d+ s$/);
    // The live feed says so too (it is coalesced every 100 ms).
    await eventually(async () => (states.at(-1) === 'down' ? true : undefined), 'down on the feed');
    const downs = states.filter((s) => s === 'down').length;
    // Several stale_after later: still there, still down, no flapping back.
    await new Promise((r) => setTimeout(r, STALE_AFTER * 2 * 1000));
    expect((await lab())?.state).toBe('down');
    expect(states.filter((s) => s === 'down').length).toBe(downs);
    expect(states.at(-1)).toBe('down');
    // Across a board restart as well.
    await board.stop();
    board = await startBoard(`${dir.path}/b`);
    expect((await lab())?.state).toBe('down');
    const removed = await http.call(`${board.url}/api/machines/lab`, {
      method: 'DELETE',
      token: TOKEN,
    });
    expect(removed.status).toBe(200);
    expect(await lab()).toBeUndefined();
  });

  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION, AGENT_TOKEN], dirs: [dir.path] }));
});
