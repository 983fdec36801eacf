import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { boardView, nextSweeps, token, writeBoardConfig } from '../board-kit.js';
import { overviewJson } from '../fleet/overview.js';
import type { Program } from '../processes.js';
import { median, sleep } from '../stats.js';
import { wrk } from '../wrk.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';

const MACHINES = 1000;
const CHANNELS = ['ops', 'oncall', 'audit'];

/** A switch in front of many machines: one server answers every machine's poll until it "dies". */
interface Switch {
  port: number;
  up: boolean;
  /**
   * Dies between two sweeps (after a pause of `quietMs` in the polls), so that the next sweep
   * finds every machine down at once: a switch dying in the middle of a sweep would split the
   * storm over two sweeps, and two messages would be right.
   */
  dieBetweenSweeps(quietMs: number): Promise<void>;
  close(): Promise<void>;
}

async function startSwitch(): Promise<Switch> {
  const state = { up: true };
  let seq = 0;
  let lastPoll = Date.now();
  const server = createServer((req, res) => {
    lastPoll = Date.now();
    const match = /^\/m(\d+)\/api\/overview$/.exec(req.url ?? '');
    if (match === null || !state.up) {
      res.writeHead(503).end();
      return;
    }
    const index = Number(match[1]);
    seq += 1;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(overviewJson({ name: `m${index}`, index }, seq, Date.now()));
  });
  await listen(server);
  return {
    port: (server.address() as AddressInfo).port,
    get up() {
      return state.up;
    },
    set up(v: boolean) {
      state.up = v;
    },
    async dieBetweenSweeps(quietMs: number) {
      while (Date.now() - lastPoll < quietMs) await sleep(20);
      state.up = false;
    },
    close: () => close(server),
  };
}

/** The webhook receiver: messages per path and the events each carried. */
async function startReceiver(): Promise<{
  url: string;
  got: Map<string, number[]>;
  close(): Promise<void>;
}> {
  const got = new Map<string, number[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: unknown[] };
      const list = got.get(req.url ?? '') ?? [];
      list.push(body.events.length);
      got.set(req.url ?? '', list);
      res.writeHead(204).end();
    });
  });
  await listen(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    got,
    close: () => close(server),
  };
}

/** A channel that never answers: it accepts connections and reads nothing back. */
async function startBlackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await listen(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await close(server);
    },
  };
}

function listen(server: {
  listen(port: number, host: string, cb: () => void): unknown;
}): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

function close(server: Server | ReturnType<typeof createTcpServer>): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function machines(sw: Switch): Record<string, string>[] {
  return Array.from({ length: MACHINES }, (_, i) => ({
    name: `m${i}`,
    url: `http://127.0.0.1:${sw.port}/m${i}`,
    key: 'bench-machine-key-0123456789',
  }));
}

/** Waits until the board shows every machine up (a machine first seen down sends nothing later). */
async function allUp(board: Program, boardToken: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const { view } = await boardView(board.url, boardToken);
    if (view.machines.filter((m) => m.state === 'up').length === MACHINES) return;
    await sleep(500);
  }
  throw new Error(`not all ${MACHINES} machines came up within 120 s`);
}

/** The last "notifications queued" log line of a board: events and the build time. */
function queuedLines(board: Program): { events: number; ms: number }[] {
  const out: { events: number; ms: number }[] = [];
  for (const line of board.output) {
    if (!line.includes('notifications queued')) continue;
    try {
      const v = JSON.parse(line) as { events?: number; ms?: number };
      if (typeof v.events === 'number' && typeof v.ms === 'number')
        out.push({ events: v.events, ms: v.ms });
    } catch {
      // not a JSON line
    }
  }
  return out;
}

/**
 * Notifications: 1,000 machines behind one switch go down in one sweep → exactly one message
 * per channel, and how long building them took inside the sweep; then a channel that never
 * answers, side by side with a board that has no channel: sweep time and GET /api/board p99.
 */
export async function notifyScenario(ctx: BenchContext): Promise<void> {
  const sw = await startSwitch();
  const receiver = await startReceiver();
  const hole = await startBlackHole();
  const boards: Program[] = [];
  try {
    // 1. One storm, three channels.
    const stormToken = token();
    const stormDir = writeBoardConfig(scenarioDir(ctx, 'notify-storm'), {
      board_token: stormToken,
      sweep_interval: 1,
      poll_timeout: 2,
      machines: machines(sw),
      notify: {
        channels: CHANNELS.map((name) => ({ name, url: `${receiver.url}/${name}` })),
        rules: [{ events: ['down', 'up'], channels: CHANNELS }],
      },
    });
    const storm = await launchBoard(ctx, stormDir, 'notify-storm');
    boards.push(storm);
    await allUp(storm, stormToken);
    // On a busy machine a poll may time out before the storm (a real down and up, sent as
    // such): only what comes after the switch dies is the storm.
    const before = CHANNELS.map((c) => receiver.got.get(`/${c}`)?.length ?? 0);
    const linesBefore = queuedLines(storm).length;
    await sw.dieBetweenSweeps(300);
    await nextSweeps(storm.url, stormToken, 2, { everyMs: 200, timeoutMs: 60_000 });
    const deadline = Date.now() + 20_000;
    const after = () => CHANNELS.map((c, i) => (receiver.got.get(`/${c}`) ?? []).slice(before[i]));
    while (Date.now() < deadline && after().some((m) => m.length < 1)) await sleep(100);
    await sleep(1000); // a second message, if there were one, would have come by now
    const perChannel = after();
    const storms = queuedLines(storm).slice(linesBefore);
    const buildMs = storms[0]?.ms ?? Number.NaN;
    if (storms.length !== 1 || storms[0]?.events !== MACHINES * CHANNELS.length) {
      ctx.problems.push(
        `notify: the storm was built in ${storms.length} sweeps: ${JSON.stringify(storms)}`,
      );
    }
    const exact = perChannel.every((m) => m.length === 1 && m[0] === MACHINES);
    ctx.log(
      `notify: messages per channel ${perChannel.map((m) => `[${m.join(', ')}]`).join(' ')}; built in ${buildMs} ms`,
    );
    if (!exact)
      ctx.problems.push(
        `notify: expected one message of ${MACHINES} events per channel, got ${JSON.stringify(perChannel)}`,
      );
    ctx.rows.push({
      what: `${count(MACHINES)} machines down in one sweep, ${CHANNELS.length} channels: messages per channel (events in each)`,
      board: perChannel[0]?.length ?? 0,
      unit: `msg (${perChannel[0]?.[0] ?? 0} events)`,
      baselineLabel: 'goal',
      baseline: 1,
      ratio: (perChannel[0]?.length ?? 0) / 1,
      goal: 'exactly 1 per channel',
      met: exact,
    });
    ctx.rows.push({
      what: `building those messages inside the sweep (rules, grouping, text, queueing; board's own measure)`,
      board: buildMs,
      unit: 'ms',
      baselineLabel: 'goal',
      baseline: 100,
      ratio: buildMs / 100,
      goal: '< 100 ms',
      met: buildMs < 100,
    });
    await storm.stop();
    boards.length = 0;
    sw.up = true;

    // 2. A channel that never answers beside no channel: same fleet, both down, reminders
    //    every sweep so the dead channel always has deliveries waiting.
    const tokens = [token(), token()];
    const configs = [
      { label: 'no channel', notify: undefined },
      {
        label: 'a channel that never answers',
        notify: {
          timeout: 10,
          channels: [{ name: 'dead', url: hole.url }],
          rules: [{ events: ['down'], channels: ['dead'], repeat: 1 }],
        },
      },
    ];
    const pair: Program[] = [];
    for (const [i, c] of configs.entries()) {
      const dir = writeBoardConfig(scenarioDir(ctx, `notify-${i}`), {
        board_token: tokens[i],
        sweep_interval: 1,
        poll_timeout: 2,
        machines: machines(sw),
        ...(c.notify === undefined ? {} : { notify: c.notify }),
      });
      const board = await launchBoard(ctx, dir, `notify-${i}`);
      pair.push(board);
      boards.push(board);
    }
    await Promise.all(
      pair.map((b, i) =>
        nextSweeps(b.url, tokens[i] as string, 2, { everyMs: 200, timeoutMs: 60_000 }),
      ),
    );
    sw.up = false;
    const seconds = ctx.options.mode === 'quick' ? 5 : 15;
    const results: { sweepMs: number; p99: number }[] = [];
    for (const [i, board] of pair.entries()) {
      const t = tokens[i] as string;
      const [sweeps, load] = await Promise.all([
        nextSweeps(board.url, t, ctx.options.mode === 'quick' ? 3 : 8, {
          everyMs: 200,
          timeoutMs: 120_000,
        }),
        wrk({
          url: `${board.url}/api/board`,
          connections: 8,
          durationS: seconds,
          headers: { authorization: `Bearer ${t}` },
        }),
      ]);
      results.push({ sweepMs: median(sweeps), p99: load.p99 });
      ctx.log(
        `notify: ${configs[i]?.label}: sweeps ${sweeps.join(', ')} ms; GET /api/board p99 ${load.p99} ms`,
      );
    }
    const [none, dead] = results as [
      { sweepMs: number; p99: number },
      { sweepMs: number; p99: number },
    ];
    const waiting = queuedLines(pair[1] as Program).length;
    ctx.rows.push({
      what: `sweep time, ${count(MACHINES)} machines down, a channel that never answers (${waiting} sweeps queued reminders) vs none`,
      board: dead.sweepMs,
      unit: 'ms',
      baselineLabel: 'no channel',
      baseline: none.sweepMs,
      ratio: dead.sweepMs / none.sweepMs,
      goal: 'unchanged (ratio ≤ 1.2)',
      met: dead.sweepMs <= none.sweepMs * 1.2 + 20,
    });
    ctx.rows.push({
      what: `GET /api/board p99 while sweeping (wrk -c8, ${seconds} s), a channel that never answers vs none`,
      board: dead.p99,
      unit: 'ms',
      baselineLabel: 'no channel',
      baseline: none.p99,
      ratio: dead.p99 / none.p99,
      goal: 'unchanged (ratio ≤ 1.2)',
      met: dead.p99 <= none.p99 * 1.2 + 2,
    });
  } finally {
    await Promise.all(boards.map((b) => b.stop()));
    await Promise.all([sw.close(), receiver.close(), hole.close()]);
  }
}
