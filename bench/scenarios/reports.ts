import { token, writeBoardConfig } from '../board-kit.js';
import type { AnnounceAnswer } from '../fleet/protocol.js';
import { cpuSeconds, Fleet, type Program, startBare } from '../processes.js';
import { median, sleep } from '../stats.js';
import { best, type Comparison, reportScript, type WrkResult, wrk } from '../wrk.js';
import { atRestRows } from './at-rest.js';
import {
  type BenchContext,
  count,
  launchBoard,
  RssSampler,
  scenarioDir,
  withPeakRss,
} from './context.js';
import { firstAnnounceRow } from './first-announce.js';
import { getDuringFlood, getWithoutFlood } from './report-flood.js';

/**
 * How long the board is left after 10,000 first announcements before the quiet GET row, counted
 * from their end (the unsettled GET row's time counts): three of its 5-s ticks (the identity
 * save after the next sweep, the history's first tick of the new machines, and the collections
 * of what the burst left).
 */
const SETTLE_MS = 15_000;

/** How long the board's RSS is sampled at rest once the whole fleet has announced. */
const REST_MS = 6_000;

/**
 * Report ingestion: M announcing machines. Capacity with wrk (keep-alive, as fast as it
 * goes), then the sustained rate M / 5 s from the simulator (a new connection per report)
 * with the board's CPU use; each against a bare node:http server that parses the same JSON.
 */
export async function reportsScenario(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const machines = options.announcers;
  const rate = machines / options.reportIntervalS;
  const registrationToken = token();
  const boardToken = token();
  const dir = writeBoardConfig(scenarioDir(ctx, 'reports'), {
    board_token: boardToken,
    registration_token: registrationToken,
    max_announced: machines + 1000,
  });
  const fleet = await Fleet.start();
  let board: Program | null = null;
  let sampler: RssSampler | null = null;
  try {
    board = await launchBoard(ctx, dir, 'reports');
    sampler = new RssSampler(board.pid, 250);

    // The first announcement of 10,000 new names (closed loop, timed beside a bare server),
    // then the rest of the fleet, untimed.
    const timed = Math.min(machines, 10_000);
    sampler.phase('announce');
    await firstAnnounceRow(ctx, board, registrationToken, timed);
    // Right after 10,000 first announcements the board still saves their identities, opens
    // their history and collects their garbage: measured (no goal), then again once that is
    // done (SETTLE_MS), the row with the goal (10,000 announced machines, no flood).
    const announcedAt = Date.now();
    await getWithoutFlood(ctx, board, boardToken, timed, false);
    await sleep(Math.max(0, SETTLE_MS - (Date.now() - announcedAt)));
    await getWithoutFlood(ctx, board, boardToken, timed, true);
    if (machines > timed) {
      const rest = await announce(fleet, board.url, registrationToken, machines, 2000, 5000);
      ctx.log(`reports: the rest of the fleet announced (${count(rest.ok)} reports)`);
    }
    // The board holding every machine, no report coming in: what the machines cost at rest.
    sampler.phase('rest');
    await sleep(REST_MS);
    sampler.phase(null);
    const restingMb = median(sampler.phaseSamples.get('rest') ?? []);
    /** Bare servers' peak RSS under each load, beside the board's peak of the same phase. */
    const bareRss = new Map<string, number>();

    // Capacity: wrk, keep-alive connections, as fast as the board answers.
    const script = reportScript(ctx.tmp, machines, registrationToken);
    const { wrkRounds: rounds, wrkSeconds: seconds } = options;
    const bareServer = await startBare(['--reports']);
    // Bare again, its answers written as the board's are (together at the end of each turn of
    // the event loop, src/board/http/answer-batch.ts): what the same write schedule gives bare.
    const batchedServer = await startBare(['--reports-batched']);
    let result: Comparison;
    let batched: WrkResult;
    let boardCpu = 0;
    const bareSampler = new RssSampler(bareServer.pid, 250);
    try {
      const boardRounds: WrkResult[] = [];
      const bareRounds: WrkResult[] = [];
      const batchedRounds: WrkResult[] = [];
      const load = (url: string) => ({ url, connections: 32, durationS: seconds, script });
      for (let round = 0; round < rounds; round++) {
        const cpu0 = cpuSeconds(board.pid);
        const t0 = Date.now();
        sampler.phase('flood');
        boardRounds.push(await wrk(load(board.url)));
        sampler.phase(null);
        boardCpu = Math.max(boardCpu, (cpuSeconds(board.pid) - cpu0) / ((Date.now() - t0) / 1000));
        bareRounds.push(await wrk(load(bareServer.url)));
        batchedRounds.push(await wrk(load(batchedServer.url)));
      }
      result = { board: best(boardRounds), bare: best(bareRounds) };
      batched = best(batchedRounds);
      bareSampler.sample();
      bareRss.set('flood', bareSampler.peakMb);
    } finally {
      bareSampler.stop();
      await bareServer.stop();
      await batchedServer.stop();
    }
    if (result.board.non2xx > 0) {
      ctx.problems.push(`reports (wrk): ${result.board.non2xx} answers other than 2xx`);
    }
    ctx.rows.push({
      what: `POST /api/report capacity, ${count(machines)} machines (wrk -c32 keep-alive, best of ${rounds}; board CPU ${pct(boardCpu)})`,
      board: result.board.requestsPerSec,
      unit: 'reports/s',
      baselineLabel: 'bare node:http + JSON.parse',
      baseline: result.bare.requestsPerSec,
      ratio: result.board.requestsPerSec / result.bare.requestsPerSec,
      goal: '≥ 0.5 × bare',
      met: result.board.requestsPerSec >= 0.5 * result.bare.requestsPerSec,
    });
    ctx.rows.push({
      what: 'POST /api/report capacity, the same, against bare with its answers written as the board writes them (together, once per turn of the event loop)',
      board: result.board.requestsPerSec,
      unit: 'reports/s',
      baselineLabel: 'bare node:http + JSON.parse, batched',
      baseline: batched.requestsPerSec,
      ratio: result.board.requestsPerSec / batched.requestsPerSec,
      goal: '',
      met: null,
    });

    // GET /api/board while reports flood in (the view of every announced machine).
    const view = await fetch(`${board.url}/api/board`, {
      headers: { authorization: `Bearer ${boardToken}` },
    });
    const viewBytes = Buffer.from(await view.arrayBuffer());
    const flooded = await getDuringFlood(ctx, board, boardToken, script, viewBytes, sampler);
    bareRss.set('get', flooded.barePeakMb);

    // Sustained: the fleet's own rate, a new connection per report, for reportSeconds.
    const durationMs = options.reportSeconds * 1000;
    sampler.phase('sustained');
    const sustained = await measureSustained(
      fleet,
      board,
      registrationToken,
      machines,
      rate,
      durationMs,
    );
    sampler.phase(null);
    checkAnnounce(ctx, 'sustained reports', sustained.answer);
    const bare = await startBare(['--reports']);
    let bareRun: Awaited<ReturnType<typeof measureSustained>>;
    try {
      const run = await withPeakRss(bare.pid, () =>
        measureSustained(fleet, bare, registrationToken, machines, rate, durationMs),
      );
      bareRun = run.result;
      bareRss.set('sustained', run.peakMb);
    } finally {
      await bare.stop();
    }
    const achieved = sustained.answer.ok / (sustained.answer.elapsedMs / 1000);
    ctx.log(
      `reports: sustained ${achieved.toFixed(0)}/s of ${rate}/s offered, board CPU ${pct(sustained.cpu)}, p99 ${sustained.answer.latencyMs.p99.toFixed(1)} ms; bare CPU ${pct(bareRun.cpu)}`,
    );
    ctx.rows.push({
      what: `reports sustained, ${count(machines)} machines every ${options.reportIntervalS} s (new connection each): reports/s answered`,
      board: achieved,
      unit: 'reports/s',
      baselineLabel: 'offered',
      baseline: rate,
      ratio: achieved / rate,
      // Not judged: agents keep their connections, so the TLS row is the steady state.
      goal: `(not judged: ≥ 0.99 × ${count(rate)}/s)`,
      met: null,
    });
    ctx.rows.push({
      what: `reports sustained at ${count(rate)}/s (new connection each): p99 latency`,
      board: sustained.answer.latencyMs.p99,
      unit: 'ms',
      baselineLabel: 'bare node:http + JSON.parse',
      baseline: bareRun.answer.latencyMs.p99,
      ratio: sustained.answer.latencyMs.p99 / bareRun.answer.latencyMs.p99,
      goal: '',
      met: null,
    });
    ctx.rows.push({
      what: `reports sustained at ${count(rate)}/s: CPU of the server process (1 core = 100 %)`,
      board: sustained.cpu * 100,
      unit: '%',
      baselineLabel: 'bare node:http + JSON.parse',
      baseline: bareRun.cpu * 100,
      ratio: sustained.cpu / bareRun.cpu,
      goal: '',
      met: null,
    });

    sampler.sample();
    ctx.rows.push({
      what: `(no goal) board RSS, ${count(machines)} announced machines (peak)`,
      board: sampler.peakMb,
      unit: 'MB',
      baselineLabel: 'empty board',
      baseline: ctx.emptyBoardRssMb,
      ratio: sampler.peakMb / ctx.emptyBoardRssMb,
      goal: '',
      met: null,
    });
    atRestRows(ctx, machines, restingMb);
    rssPhaseRows(ctx, machines, sampler, bareRss);
  } finally {
    sampler?.stop();
    await board?.stop(options.cpuProfDir === null ? 10_000 : 60_000);
    await fleet.stop();
  }
}

function announce(
  fleet: Fleet,
  url: string,
  registrationToken: string,
  machines: number,
  rate: number,
  durationMs: number,
): Promise<AnnounceAnswer> {
  return fleet.announce({
    board: url,
    token: registrationToken,
    machines,
    rate,
    durationMs,
    maxInFlight: 2000,
  });
}

async function measureSustained(
  fleet: Fleet,
  server: Program,
  registrationToken: string,
  machines: number,
  rate: number,
  durationMs: number,
): Promise<{ answer: AnnounceAnswer; cpu: number }> {
  const cpu0 = cpuSeconds(server.pid);
  const t0 = Date.now();
  const answer = await announce(fleet, server.url, registrationToken, machines, rate, durationMs);
  const cpu = (cpuSeconds(server.pid) - cpu0) / ((Date.now() - t0) / 1000);
  return { answer, cpu };
}

/**
 * A report the board refused or answered wrongly is a problem; one that timed out or was
 * skipped because the board fell behind is a timing, which the table shows and --check does
 * not judge.
 */
function checkAnnounce(ctx: BenchContext, what: string, answer: AnnounceAnswer): void {
  const refused = Object.entries(answer.statuses).filter(([status]) => status !== '200');
  const wrong = answer.failed - Object.values(answer.errors).reduce((a, b) => a + b, 0);
  if (refused.length > 0 || wrong > refused.reduce((sum, [, n]) => sum + n, 0)) {
    ctx.problems.push(
      `${what}: answers other than {"ok":true}: ${JSON.stringify(answer.statuses)}`,
    );
  }
  if (answer.sent > 0 && answer.ok === 0) ctx.problems.push(`${what}: no report was accepted`);
  if (answer.failed > 0 || answer.skipped > 0) {
    ctx.log(
      `${what}: ${answer.failed} failed (${JSON.stringify(answer.errors)}), ${answer.skipped} skipped: the board fell behind`,
    );
  }
}

/** Which load each phase of the scenario is, as its rows name it. */
const PHASES: [string, string][] = [
  ['announce', 'while the fleet first announced (with the quiet GETs and the settle)'],
  ['rest', `at rest for ${REST_MS / 1000} s, every machine announced, no report coming in`],
  ['flood', 'reports as fast as they are answered (wrk -c32, keep-alive)'],
  ['get', 'GETs of the view (wrk -c2) during that flood'],
  ['sustained', "reports at the fleet's rate, a new connection each"],
];

/**
 * The peak of the RSS row, taken apart by phase (no goal): the board's peak under each load
 * beside a bare server's peak under the same load (at rest, beside the empty board).
 */
function rssPhaseRows(
  ctx: BenchContext,
  machines: number,
  sampler: RssSampler,
  bareRss: Map<string, number>,
): void {
  const peak = sampler.peakPhase ?? '';
  const after = peak.startsWith('after ');
  const at = PHASES.find(([phase]) => phase === (after ? peak.slice(6) : peak))?.[1];
  const when =
    at === undefined
      ? 'before any phase'
      : after
        ? `after the phase "${at}", the board idle (a bare server under that load, or the next phase not begun)`
        : at;
  ctx.log(`reports: board RSS peak ${sampler.peakMb.toFixed(0)} MB, ${when}`);
  for (const [phase, label] of PHASES) {
    const board = sampler.phases.get(phase);
    if (board === undefined) continue;
    const bare = bareRss.get(phase);
    const baseline = bare ?? ctx.emptyBoardRssMb;
    ctx.rows.push({
      what: `(no goal) board RSS, ${count(machines)} announced: peak ${label}`,
      board,
      unit: 'MB',
      baselineLabel: bare === undefined ? 'empty board' : 'bare server, same load',
      baseline,
      ratio: board / baseline,
      goal: '',
      met: null,
    });
  }
}

function pct(share: number): string {
  return `${(share * 100).toFixed(0)} %`;
}
