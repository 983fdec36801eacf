import { announcerReport } from '../fleet/overview.js';
import { startBare } from '../processes.js';
import { quantile } from '../stats.js';
import { type BenchContext, count } from './context.js';

/** Requests in flight at once, as a fleet's rollout script with Node's fetch would send them. */
const IN_FLIGHT = 32;

/** The goal for 10,000 new names (scaled to the names announced), or this times bare's time. */
const GOAL_S_PER_10K = 3;
const GOAL_RATIO = 1.5;

/** Reports sent to the bare server before any is timed, so neither side pays fetch's warm-up. */
const WARM_UP = 500;

/** What a closed loop of first announcements with fetch measured. */
export interface FetchAnnounceRun {
  elapsedMs: number;
  ok: number;
  failed: number;
  p99: number;
  /** CPU seconds of this (the client's) process over the run, per second of it. */
  clientCpu: number;
}

/**
 * The first announcement of names `from` … `to - 1` with Node's global fetch (its own pool,
 * keep-alive), IN_FLIGHT at a time in a closed loop, each name once, in order: the same
 * bodies as the fleet's announcers, so the later phases find them known.
 */
export async function fetchAnnounce(
  url: string,
  token: string,
  from: number,
  to: number,
): Promise<FetchAnnounceRun> {
  const latencies: number[] = [];
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let next = from;
  let ok = 0;
  let failed = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < to) {
      const index = next;
      next += 1;
      const body = announcerReport(index, 1, Date.now());
      const t0 = performance.now();
      try {
        const r = await fetch(`${url}/api/report`, { method: 'POST', headers, body });
        const text = await r.text();
        if (r.status === 200 && text.startsWith('{"ok":true')) ok += 1;
        else failed += 1;
      } catch {
        failed += 1;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  const clientCpu = (cpu.user + cpu.system) / 1000 / elapsedMs;
  return { elapsedMs, ok, failed, p99: quantile(latencies, 0.99), clientCpu };
}

/**
 * The row for the first announcement of `machines` new names to the fresh board, beside a bare
 * node:http + JSON.parse server taking the same bodies from the same client: bare, board, bare
 * (the board's names are new only once); the baseline is the mean of the two bare rounds, which
 * bracket the board's in time (the load of a shared machine drifts).
 */
export async function firstAnnounceRow(
  ctx: BenchContext,
  board: { url: string },
  token: string,
  machines: number,
): Promise<void> {
  const bare = await startBare(['--reports']);
  const bareRuns: FetchAnnounceRun[] = [];
  let run: FetchAnnounceRun;
  try {
    await fetchAnnounce(bare.url, token, 0, Math.min(WARM_UP, machines));
    bareRuns.push(await fetchAnnounce(bare.url, token, 0, machines));
    run = await fetchAnnounce(board.url, token, 0, machines);
    bareRuns.push(await fetchAnnounce(bare.url, token, 0, machines));
  } finally {
    await bare.stop();
  }
  if (run.failed > 0)
    ctx.problems.push(`first announce: ${run.failed} of ${machines} not answered {"ok":true}`);
  const seconds = (r: FetchAnnounceRun) => (r.elapsedMs / 1000).toFixed(2);
  ctx.log(
    `first announce (fetch, ${IN_FLIGHT} in flight): ${count(run.ok)} names in ${seconds(run)} s (p99 ${run.p99.toFixed(0)} ms, client CPU ${pct(run.clientCpu)}); bare ${bareRuns.map(seconds).join(' and ')} s (client CPU ${bareRuns.map((r) => pct(r.clientCpu)).join(' and ')})`,
  );
  const goalS = (machines / 10_000) * GOAL_S_PER_10K;
  const boardS = run.elapsedMs / 1000;
  const bareS = bareRuns.reduce((sum, r) => sum + r.elapsedMs, 0) / bareRuns.length / 1000;
  ctx.rows.push({
    what: `first announce of ${count(machines)} new names${machines < 10_000 ? ' (the quick fleet)' : ''} to a fresh board (Node's fetch, ${IN_FLIGHT} in flight, keep-alive; bare before and after, their mean)`,
    board: boardS,
    unit: 's',
    baselineLabel: 'bare node:http + JSON.parse, same client',
    baseline: bareS,
    ratio: boardS / bareS,
    goal: `≤ ${goalS.toFixed(1)} s or ≤ ${GOAL_RATIO} × bare`,
    met: boardS <= goalS || boardS <= GOAL_RATIO * bareS,
  });
}

function pct(share: number): string {
  return `${(share * 100).toFixed(0)} %`;
}
