import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { token, writeBoardConfig } from '../board-kit.js';
import type { TlsReportAnswer } from '../fleet/protocol.js';
import { cpuSeconds, Fleet, type Program, rssMb, startBare } from '../processes.js';
import { median } from '../stats.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';

const GENERATOR_NICE = -10;

/** The board's keep_alive in this scenario: its default (src/board/config/config.ts). */
const KEEP_ALIVE_S = 75;

/**
 * M agents reporting every interval over TLS, each keeping its connection, against the
 * board (HTTPS, its default keep_alive) and against bare node:https + JSON.parse keeping idle
 * connections as long: all reports accepted, the p99 beside bare's, and the handshakes per
 * minute once every agent has joined (about zero when connections are kept), and RSS beside bare.
 */
export async function tlsReportsScenario(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const machines = options.tlsAgents;
  const pair = selfSignedPair(join(scenarioDir(ctx, 'tls-reports'), 'tls'));
  const ca = readFileSync(pair.cert, 'utf8');
  const registrationToken = token();
  const load = {
    token: registrationToken,
    ca,
    machines,
    intervalMs: options.tlsIntervalS * 1000,
    rampMs: options.tlsRampS * 1000,
    measureMs: options.tlsMeasureS * 1000,
    settleIntervals: options.tlsSettleIntervals,
  };
  let generatorNice = 0;
  const measure = async (server: Program): Promise<Measured> => {
    // A simulator of its own each time: every agent starts without a connection.
    const idleRss = rssMb(server.pid);
    const fleet = await Fleet.start();
    // The generator before the server: on 2 cores a generator that waits for a core puts its
    // own delay into every latency it measures, and more so beside a server using more CPU.
    // The same for the board and for bare.
    generatorNice = raisePriority(fleet.pid);
    // CPU and RSS sampled throughout; counted over the window only, which starts when the
    // generator says (two intervals after the last join, tls-reporters.ts).
    const samples: Array<{ at: number; cpu: number; rss: number }> = [];
    const sample = () => {
      try {
        samples.push({ at: Date.now(), cpu: cpuSeconds(server.pid), rss: rssMb(server.pid) });
      } catch {
        // The server has gone: the answer says what failed.
      }
    };
    const sampler = setInterval(sample, 250);
    try {
      const started = Date.now();
      sample();
      const result = await fleet.reportOverTls({ ...load, board: server.url });
      sample();
      const from = started + result.windowStartMs;
      const inWindow = samples.filter((x) => x.at >= from && x.at <= from + result.windowMs);
      const first = inWindow[0];
      const last = inWindow.at(-1);
      const cpu =
        first === undefined || last === undefined || last.at === first.at
          ? Number.NaN
          : (last.cpu - first.cpu) / ((last.at - first.at) / 1000);
      const rss = Math.max(...inWindow.map((x) => x.rss));
      return { result, cpu, rss, idleRss };
    } finally {
      clearInterval(sampler);
      await fleet.stop();
    }
  };

  // Rounds alternate (board, bare, board, …), each on a fresh board (its own data directory:
  // every agent announces itself for the first time) and a fresh bare server; the p99 is each
  // side's median over its rounds, the rounds all shown: one window each would let a burst of
  // the shared machine's load set the ratio on its own. Every round is logged.
  const boardRounds: Measured[] = [];
  const bareRounds: Measured[] = [];
  for (let round = 1; round <= options.tlsRounds; round++) {
    const dir = writeBoardConfig(scenarioDir(ctx, `tls-reports-${round}`), {
      board_token: token(),
      registration_token: registrationToken,
      max_announced: machines + 1000,
      tls: pair,
    });
    const board = await launchBoard(ctx, dir, `tls-reports-${round}`);
    let boardRound: Measured;
    try {
      boardRound = await measure(board);
    } finally {
      await board.stop(options.cpuProfDir === null ? 10_000 : 60_000);
    }
    const bare = await startBare([
      '--reports',
      '--tls',
      pair.cert,
      pair.key,
      '--keep-alive',
      String(KEEP_ALIVE_S),
    ]);
    let bareRound: Measured;
    try {
      bareRound = await measure(bare);
    } finally {
      await bare.stop();
    }
    boardRounds.push(boardRound);
    bareRounds.push(bareRound);
    logRound(round, boardRound, bareRound);
  }
  const boardP99 = median(boardRounds.map((m) => m.result.latencyMs.p99));
  const bareP99 = median(bareRounds.map((m) => m.result.latencyMs.p99));
  const boardCpu = median(boardRounds.map((m) => m.cpu));
  const bareCpu = median(bareRounds.map((m) => m.cpu));
  // Everything else counts every round: all accepted in each, the most handshakes, the most RSS.
  const allAccepted = boardRounds.every(
    ({ result: r }) => r.sent > 0 && r.ok === r.sent && r.skipped === 0,
  );
  const rate = machines / options.tlsIntervalS;
  for (const { result: r } of boardRounds) {
    if (r.sent > 0 && r.ok === 0) ctx.problems.push('tls reports: no report was accepted');
    if (Object.keys(r.statuses).some((status) => status !== '200')) {
      ctx.problems.push(`tls reports: answers other than 200: ${JSON.stringify(r.statuses)}`);
    }
  }
  const p99Ratio = boardP99 / bareP99;
  const label = `${count(machines)} agents every ${options.tlsIntervalS} s over TLS (${count(rate)}/s), kept connections, ${options.tlsMeasureS} s after all joined`;
  const rounds = `median of ${options.tlsRounds} alternating rounds, each on a fresh server (rounds: board ${boardRounds.map(p99).join(', ')} ms; bare ${bareRounds.map(p99).join(', ')} ms)`;
  const accepted = boardRounds.map(({ result: r }) => `${count(r.ok)} of ${count(r.sent)}`);
  ctx.rows.push({
    what: `reports over TLS, p99: ${label}; ${rounds}; board accepted ${accepted.join(', ')}, CPU ${(boardCpu * 100).toFixed(0)} % (bare ${(bareCpu * 100).toFixed(0)} %), medians`,
    board: boardP99,
    unit: 'ms',
    baselineLabel: 'bare node:https + JSON.parse',
    baseline: bareP99,
    ratio: p99Ratio,
    goal: 'all accepted, p99 ≤ 2 × bare',
    met: allAccepted && p99Ratio <= 2,
  });
  const perMinute = (r: TlsReportAnswer) => r.handshakes / (r.windowMs / 60_000);
  // The share of reports that paid for a handshake (1 when each report opens a connection):
  // the board's worst round.
  const share = (r: TlsReportAnswer) => (r.sent === 0 ? Number.NaN : r.handshakes / r.sent);
  const mostHandshakes = worst(boardRounds, (m) => share(m.result));
  ctx.rows.push({
    what: `TLS handshakes per minute in steady state (${label}; the board's round with the most; ratio: handshakes ÷ reports)`,
    board: perMinute(mostHandshakes.result),
    unit: '/min',
    baselineLabel: 'bare node:https',
    baseline: perMinute(worst(bareRounds, (m) => share(m.result)).result),
    ratio: share(mostHandshakes.result),
    goal: '≈ 0 (< 1 % of reports)',
    met: share(mostHandshakes.result) < 0.01,
  });
  // What each agent's kept connection costs: bare holds nothing else, the board holds the
  // machine too. The highest peak of the rounds, each side.
  const boardRss = worst(boardRounds, (m) => m.rss);
  const bareRss = worst(bareRounds, (m) => m.rss);
  const perAgentKb = (m: Measured) => ((m.rss - m.idleRss) * 1000) / machines;
  const rssRatio = boardRss.rss / bareRss.rss;
  ctx.rows.push({
    what: `RSS, ${label}: peak over the window, the higher round (KB per agent over the server's RSS before they joined: board ${perAgentKb(boardRss).toFixed(0)}, bare ${perAgentKb(bareRss).toFixed(0)})`,
    board: boardRss.rss,
    unit: 'MB',
    baselineLabel: 'bare node:https + JSON.parse',
    baseline: bareRss.rss,
    ratio: rssRatio,
    goal: '≤ 1.5 × bare',
    met: rssRatio <= 1.5,
  });

  function logRound(round: number, onBoard: Measured, onBare: Measured): void {
    const [b, base] = [onBoard.result, onBare.result];
    ctx.log(
      `tls reports, round ${round}: board ${b.ok}/${b.sent} ok, ${b.failed} failed ${JSON.stringify(b.errors)} ${JSON.stringify(b.statuses)}, ${b.skipped} skipped, p50 ${b.latencyMs.p50.toFixed(1)} ms p99 ${b.latencyMs.p99.toFixed(1)} ms, ${b.handshakes} handshakes in the window (${b.handshakesAll} in all, ${b.serverCloses} closed by the server), CPU ${(onBoard.cpu * 100).toFixed(0)} %, RSS ${onBoard.rss.toFixed(0)} MB; ` +
        `bare ${base.ok}/${base.sent} ok, p99 ${base.latencyMs.p99.toFixed(1)} ms, ${base.handshakes} handshakes, CPU ${(onBare.cpu * 100).toFixed(0)} %, RSS ${onBare.rss.toFixed(0)} MB`,
    );
    for (const [who, r] of [
      ['board', b],
      ['bare', base],
    ] as const) {
      ctx.log(
        `tls reports, round ${round}, ${who}: ${r.joined} of ${machines} joined, the last at ${(r.joinedMs / 1000).toFixed(1)} s (the ramp ends at ${options.tlsRampS} s); window from ${(r.windowStartMs / 1000).toFixed(1)} s (planned ${(r.plannedStartMs / 1000).toFixed(1)} s); the generator (nice ${generatorNice}) lagged at most ${r.lagMs.toFixed(0)} ms in it`,
      );
    }
  }
}

function p99(m: Measured): string {
  return m.result.latencyMs.p99.toFixed(1);
}

/** The round where `of` is highest. */
function worst(rounds: Measured[], of: (m: Measured) => number): Measured {
  return rounds.reduce((a, b) => (of(b) > of(a) ? b : a));
}

interface Measured {
  result: TlsReportAnswer;
  cpu: number;
  /** Peak RSS over the measured window, MB. */
  rss: number;
  /** RSS before the first agent connected, MB. */
  idleRss: number;
}

/** A self-signed EC P-256 certificate for 127.0.0.1 (the openssl CLI, as the tests make theirs). */
function selfSignedPair(dir: string): { cert: string; key: string } {
  mkdirSync(dir, { recursive: true });
  const cert = join(dir, 'board.pem');
  const key = join(dir, 'board.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { cert, key };
}

/** The generator's nice value: -10 when this process may raise it (root), else left at 0. */
function raisePriority(pid: number): number {
  try {
    setPriority(pid, GENERATOR_NICE);
    return GENERATOR_NICE;
  } catch {
    return 0;
  }
}
