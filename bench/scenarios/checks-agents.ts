import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { token, writeBoardConfig } from '../board-kit.js';
import { checksConfig } from '../fleet/checks.js';
import { cpuSeconds, type Program, ROOT, rssMb, startAgent } from '../processes.js';
import { median, sleep } from '../stats.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';

const RUNNERS = 10;
const IDLE = 2;
const INTERVAL_S = 10;
/** The check the down-to-notification time is measured on: fast, one runner. */
const PROBE = { name: 'down-probe', intervalS: 2, failureThreshold: 2 };

/**
 * Real agents announcing to a real board: RUNNERS of them each running every check (labelled
 * role=runner by the board), IDLE alike that run none; their RSS and CPU per interval over the
 * same window, beside a bare Node loop of fetch running the same checks; then the time from a
 * target going down to the board's webhook.
 */
export async function checksAgents(ctx: BenchContext): Promise<void> {
  const checks = ctx.options.mode === 'quick' ? 100 : 1000;
  const quick = ctx.options.mode === 'quick';
  const windowS = quick ? INTERVAL_S : 60;
  const target = await listen(createServer((_q, s) => s.writeHead(200).end('ok')));
  const probe = { up: true };
  const probeTarget = await listen(
    createServer((_q, s) => s.writeHead(probe.up ? 200 : 503).end(probe.up ? 'ok' : 'down')),
  );
  const hook = webhookReceiver();
  const hookServer = await listen(hook.server);
  const registrationToken = token();
  const boardToken = token();
  const dir = writeBoardConfig(scenarioDir(ctx, 'checks-agents'), {
    board_token: boardToken,
    registration_token: registrationToken,
    checks: [
      ...checksConfig(checks, `http://127.0.0.1:${port(target)}/`, {
        intervalS: INTERVAL_S,
        selector: () => 'role=runner',
      }),
      {
        name: PROBE.name,
        type: 'http',
        target: `http://127.0.0.1:${port(probeTarget)}/`,
        interval: PROBE.intervalS,
        conditions: ['[STATUS] == 200'],
        runners: { selector: 'name=runner-01' },
        failure_threshold: PROBE.failureThreshold,
      },
    ],
    notify: {
      channels: [{ name: 'hook', url: `http://127.0.0.1:${port(hookServer)}/hook` }],
      rules: [{ events: ['check'], checks: [PROBE.name], channels: ['hook'] }],
    },
  });
  const started: Program[] = [];
  let board: Program | null = null;
  try {
    board = await launchBoard(ctx, dir, 'checks-agents');
    const agentToken = token();
    const names = [
      ...Array.from({ length: RUNNERS }, (_, i) => `runner-${String(i + 1).padStart(2, '0')}`),
      ...Array.from({ length: IDLE }, (_, i) => `idle-${String(i + 1).padStart(2, '0')}`),
    ];
    for (const name of names) {
      started.push(
        await startAgent(ctx.tmp, {
          name,
          token: agentToken,
          data_dir: join(ctx.tmp, `${name}-data`),
          report: { board: board.url, token: registrationToken, interval: 5 },
        }),
      );
    }
    const auth = { authorization: `Bearer ${boardToken}`, 'content-type': 'application/json' };
    await waitFor(
      async () => (await listed(board as Program, auth)).length === names.length,
      30_000,
    );
    for (const name of names.slice(0, RUNNERS)) {
      const r = await fetch(`${board.url}/api/machines/${name}/labels`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ labels: { role: 'runner' } }),
      });
      if (r.status !== 200) throw new Error(`labelling ${name}: ${r.status}`);
    }
    // Every runner handed its checks and through two intervals of them before the window.
    await waitFor(() => everyRunnerReports(board as Program, auth, checks), 60_000);
    await sleep((quick ? 1 : 2) * INTERVAL_S * 1000);
    const runners = started.slice(0, RUNNERS);
    const idle = started.slice(RUNNERS);
    const bare = startFetchLoop(`http://127.0.0.1:${port(target)}/`, checks, INTERVAL_S);
    await sleep((quick ? 0.5 : 1) * INTERVAL_S * 1000);
    const cpu0 = new Map([...started, bare].map((p) => [p.pid, cpuSeconds(p.pid)]));
    const rss = new Map<number, number[]>();
    const until = Date.now() + windowS * 1000;
    while (Date.now() < until) {
      for (const p of [...started, bare]) rss.set(p.pid, [...(rss.get(p.pid) ?? []), rssMb(p.pid)]);
      await sleep(1000);
    }
    const perInterval = (p: { pid: number }) =>
      ((cpuSeconds(p.pid) - (cpu0.get(p.pid) ?? 0)) / windowS) * INTERVAL_S * 1000;
    const rssOf = (p: { pid: number }) => median(rss.get(p.pid) ?? []);
    const runnerRss = median(runners.map(rssOf));
    const idleRss = median(idle.map(rssOf));
    const runnerCpu = median(runners.map(perInterval));
    const idleCpu = median(idle.map(perInterval));
    const bareCpu = perInterval(bare);
    const bareRss = rssOf(bare);
    bare.kill();
    const load = `${count(checks)} http checks every ${INTERVAL_S} s from each of ${RUNNERS} agents against a local server (${count((checks * RUNNERS) / INTERVAL_S)} requests/s in all), median of the agents over ${windowS} s`;
    ctx.rows.push({
      what: `agent RSS running checks: ${load}`,
      board: runnerRss,
      unit: 'MB',
      baselineLabel: `an agent running none (median of ${IDLE})`,
      baseline: idleRss,
      ratio: runnerRss / idleRss,
      goal: '≤ 1.2 × without',
      met: runnerRss <= 1.2 * idleRss,
    });
    ctx.rows.push({
      what: `(no goal) agent CPU per ${INTERVAL_S} s interval running checks (${load}; an agent running none: ${idleCpu.toFixed(0)} ms)`,
      board: runnerCpu,
      unit: 'ms',
      baselineLabel: `a bare Node loop of fetch, the same ${count(checks)} requests per interval (RSS ${bareRss.toFixed(0)} MB)`,
      baseline: bareCpu,
      ratio: runnerCpu / bareCpu,
      goal: '',
      met: null,
    });
    await downToNotification(ctx, probe, hook, quick ? 2 : 3);
  } finally {
    for (const p of started) await p.stop(5000);
    await board?.stop(10_000);
    for (const s of [target, probeTarget, hookServer]) s.closeAllConnections();
    for (const s of [target, probeTarget, hookServer]) s.close();
  }
}

/** The probe's target turned down `rounds` times: the time until the webhook said down, each time. */
async function downToNotification(
  ctx: BenchContext,
  probe: { up: boolean },
  hook: ReturnType<typeof webhookReceiver>,
  rounds: number,
): Promise<void> {
  const goalMs = PROBE.intervalS * PROBE.failureThreshold * 1000 + 2000;
  const times: number[] = [];
  await waitFor(async () => hook.states.includes('up') || hook.states.length === 0, 30_000);
  for (let round = 0; round < rounds; round++) {
    const before = hook.states.length;
    const at = Date.now();
    probe.up = false;
    const got = await waitFor(async () => hook.states.slice(before).includes('down'), 30_000);
    if (!got) {
      ctx.problems.push('checks: no down notification within 30 s');
      return;
    }
    times.push((hook.at[hook.states.indexOf('down', before)] ?? Date.now()) - at);
    const upFrom = hook.states.length;
    probe.up = true;
    await waitFor(async () => hook.states.slice(upFrom).includes('up'), 30_000);
  }
  const worst = Math.max(...times);
  ctx.rows.push({
    what: `a target going down → the webhook's check event (interval ${PROBE.intervalS} s, failure_threshold ${PROBE.failureThreshold}, one real agent as runner; worst of ${rounds}, each ${times.map((t) => (t / 1000).toFixed(1)).join(', ')} s)`,
    board: worst / 1000,
    unit: 's',
    baselineLabel: 'interval × failure_threshold',
    baseline: PROBE.intervalS * PROBE.failureThreshold,
    ratio: worst / (PROBE.intervalS * PROBE.failureThreshold * 1000),
    goal: `≤ interval × failure_threshold + 2 s (${goalMs / 1000} s)`,
    met: worst <= goalMs,
  });
}

function webhookReceiver(): { server: Server; states: string[]; at: number[] } {
  const states: string[] = [];
  const at: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      try {
        // The board's webhook body: {events: [...]}, a batch of what happened.
        const batch = JSON.parse(body) as { events?: { event?: string; state?: string }[] };
        for (const event of batch.events ?? []) {
          if (event.event !== 'check' || typeof event.state !== 'string') continue;
          states.push(event.state);
          at.push(Date.now());
        }
      } catch {}
      res.writeHead(200).end();
    });
  });
  return { server, states, at };
}

async function listed(board: Program, headers: Record<string, string>): Promise<string[]> {
  const r = await fetch(`${board.url}/api/board`, { headers });
  const view = (await r.json()) as { machines: { name: string }[] };
  return view.machines.map((m) => m.name);
}

async function everyRunnerReports(
  board: Program,
  headers: Record<string, string>,
  checks: number,
): Promise<boolean> {
  const r = await fetch(`${board.url}/api/checks`, { headers });
  const list = (await r.json()) as { name: string; runners: unknown[] }[];
  const bench = list.filter((c) => c.name.startsWith('http-'));
  return bench.length === checks && bench.every((c) => c.runners.length === RUNNERS);
}

async function waitFor(test: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if (await test()) return true;
    } catch {}
    await sleep(250);
  }
  return false;
}

async function listen(server: Server): Promise<Server> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

function port(server: Server): number {
  return (server.address() as AddressInfo).port;
}

/** The baseline: a bare Node process fetching `url` `n` times every interval, 16 at a time. */
function startFetchLoop(url: string, n: number, intervalS: number): { pid: number; kill(): void } {
  const code = `
const url = ${JSON.stringify(url)}, n = ${n};
async function round() {
  let next = 0;
  const worker = async () => { while (next < n) { next++; const r = await fetch(url); await r.text(); } };
  await Promise.all(Array.from({ length: 16 }, worker));
}
setInterval(round, ${intervalS * 1000}); round();`;
  const child = spawn(process.execPath, ['-e', code], { cwd: ROOT, stdio: 'ignore' });
  return { pid: child.pid ?? 0, kill: () => child.kill('SIGKILL') };
}
