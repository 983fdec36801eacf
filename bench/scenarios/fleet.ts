import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import {
  boardView,
  checkFleetView,
  configuredMachines,
  nextSweeps,
  token,
  writeBoardConfig,
} from '../board-kit.js';
import type { ServeRequest, SimMachine } from '../fleet/protocol.js';
import { type BareSweeps, bareSweeps, Fleet, type Program, startBare } from '../processes.js';
import { median, nowMs, quantile } from '../stats.js';
import { alternate, bestOf, type Comparison, type WrkResult } from '../wrk.js';
import { type BenchContext, count, launchBoard, RssSampler, scenarioDir } from './context.js';
import { metricsRows } from './metrics-rows.js';

/** The board's default sweep_concurrency (src/board/config/config.ts), which the bench's boards use. */
const BOARD_SWEEP_CONCURRENCY = 256;

/**
 * A board configured with N simulated machines (10 % black holes, 10 % refusing, 5 % slow):
 * sweep time; for the small fleet GET /api/board throughput and the relay overhead; for the
 * large fleet GET /api/board p99 while it sweeps; RSS.
 */
export async function fleetScenario(
  ctx: BenchContext,
  n: number,
  size: 'small' | 'large',
): Promise<void> {
  const { options } = ctx;
  // The bare sweep clients first, each on a simulator of its own (the same seeded fleet): by
  // hand on node:net (the least a sweep needs, shown), then through undici, the client the
  // board's poller uses (the sweep rows' baseline).
  const bare = size === 'large' ? await bareFleetSweeps(ctx, n, 'net') : null;
  const bareUndici = size === 'large' ? await bareFleetSweeps(ctx, n, 'undici') : null;
  const fleet = await Fleet.start();
  let board: Program | null = null;
  let sampler: RssSampler | null = null;
  try {
    const served = await fleet.serve(fleetOf(ctx, n));
    ctx.log(
      `fleet of ${count(n)}: simulator listening on ${count(served.listeners)} loopback addresses`,
    );
    const boardToken = token();
    const dir = writeBoardConfig(scenarioDir(ctx, `fleet-${n}`), {
      board_token: boardToken,
      // The large board sweeps back to back, so the p99 below is taken while a sweep runs.
      sweep_interval: size === 'large' ? 1 : 5,
      poll_timeout: options.pollTimeoutS,
      machines: configuredMachines(served.machines),
    });
    const started = Date.now();
    board = await launchBoard(ctx, dir, `fleet-${n}`);
    sampler = new RssSampler(board.pid, 250);
    ctx.log(`fleet of ${count(n)}: board listening after ${Date.now() - started} ms`);

    const sweepTimeout =
      (options.sweepsMeasured + 2) * (n / 50 + options.pollTimeoutS * 1000 * 6 + 10_000);
    const [cold = Number.NaN] = await nextSweeps(board.url, boardToken, 1, {
      everyMs: 500,
      timeoutMs: sweepTimeout,
    });
    const sweeps = await nextSweeps(board.url, boardToken, options.sweepsMeasured, {
      everyMs: 1000,
      timeoutMs: sweepTimeout,
    });
    const sweepS = median(sweeps) / 1000;
    ctx.log(
      `fleet of ${count(n)}: sweeps took ${sweeps.map((ms) => `${ms} ms`).join(', ')} (the first, cold one ${cold} ms)`,
    );
    // The sweep goals are ratios to the bare client through undici (the client the board polls
    // with) of the same run; the raw node:net client's rows below say what undici costs.
    const judge = bareUndici;
    const judgeWarmS = judge === null ? null : median(judge.warm) / 1000;
    const warmRatio = sweepS / (judgeWarmS ?? options.pollTimeoutS);
    ctx.rows.push({
      what: `sweep time, warm (median of ${sweeps.length}), ${count(n)} machines (10 % black holes, 10 % refusing)`,
      board: sweepS,
      unit: 's',
      ...(judgeWarmS === null
        ? { baselineLabel: 'poll_timeout', baseline: options.pollTimeoutS }
        : { baselineLabel: 'bare client through undici, same fleet', baseline: judgeWarmS }),
      ratio: warmRatio,
      goal: judgeWarmS === null ? '' : '≤ 1.15 × bare client through undici',
      met: judgeWarmS === null ? null : warmRatio <= 1.15,
    });

    if (judge !== null) {
      ctx.rows.push({
        what: `first (cold) sweep after start, ${count(n)} machines (none known yet)`,
        board: cold / 1000,
        unit: 's',
        baselineLabel: 'bare client through undici, same fleet',
        baseline: judge.cold / 1000,
        ratio: cold / judge.cold,
        goal: '≤ 1.3 × bare client through undici',
        met: cold / judge.cold <= 1.3,
      });
    }
    if (bare !== null && bareUndici !== null) {
      // What undici alone costs beside the least a sweep needs (no goal of its own).
      const bareWarmS = median(bare.warm) / 1000;
      ctx.rows.push({
        what: `(no goal) bare client through undici (the board's dispatcher set-up, least handler): cold sweep, ${count(n)} machines`,
        board: bareUndici.cold / 1000,
        unit: 's',
        baselineLabel: 'bare client on node:net, same fleet',
        baseline: bare.cold / 1000,
        ratio: bareUndici.cold / bare.cold,
        goal: '',
        met: null,
      });
      const undiciWarmS = median(bareUndici.warm) / 1000;
      ctx.rows.push({
        what: `(no goal) bare client through undici: warm sweep (median of ${bareUndici.warm.length}), ${count(n)} machines`,
        board: undiciWarmS,
        unit: 's',
        baselineLabel: 'bare client on node:net, same fleet',
        baseline: bareWarmS,
        ratio: undiciWarmS / bareWarmS,
        goal: '',
        met: null,
      });
      ctx.rows.push({
        what: `(no goal) bare client through undici: RSS holding ${count(n)} machines' connections (peak)`,
        board: bareUndici.peakRssMb,
        unit: 'MB',
        baselineLabel: 'bare client on node:net, same fleet',
        baseline: bare.peakRssMb,
        ratio: bareUndici.peakRssMb / bare.peakRssMb,
        goal: '',
        met: null,
      });
    }

    const { bytes, view } = await boardView(board.url, boardToken);
    if (options.check) {
      for (const p of checkFleetView(view, served.machines))
        ctx.problems.push(`fleet of ${n}: ${p}`);
    }
    const bytesFile = join(ctx.tmp, `board-${n}.json`);
    writeFileSync(bytesFile, bytes);
    const sizeMb = bytes.length / 1e6;

    // The peak while it only sweeps, before any client reads the view.
    const sweepingPeakMb = sampler.peakMb;
    let duringSweep: WrkResult | null = null;
    if (size === 'small') {
      await boardThroughput(ctx, board, boardToken, bytesFile, n, sizeMb);
      await relayOverhead(ctx, board, boardToken, served.machines);
    } else {
      duringSweep = await p99DuringSweep(ctx, board, boardToken);
      const measured = duringSweep;
      await metricsRows(ctx, board, boardToken, n, measured, () =>
        p99DuringSweep(ctx, board as Program, boardToken),
      );
    }

    sampler.sample();
    ctx.rows.push({
      what: `(no goal) board RSS, ${count(n)} configured machines, sweeping (peak; ${sampler.peakMb.toFixed(0)} MB with the GET load above${bare === null ? '' : `; the bare sweep client of the same fleet: ${bare.peakRssMb.toFixed(0)} MB`})`,
      board: sweepingPeakMb,
      unit: 'MB',
      baselineLabel: 'empty board',
      baseline: ctx.emptyBoardRssMb,
      ratio: sweepingPeakMb / ctx.emptyBoardRssMb,
      goal: '',
      met: null,
    });
    if (duringSweep !== null) {
      // The baseline runs with the board stopped, so that no sweep competes with it.
      sampler.stop();
      await board.stop(options.cpuProfDir === null ? 10_000 : 60_000);
      await fleet.stop();
      const bare = await p99Bare(ctx, bytesFile);
      ctx.rows.push({
        what: `GET /api/board p99 while sweeping ${count(n)} (${sizeMb.toFixed(1)} MB, wrk -c${P99_CONNECTIONS}, best of ${options.wrkRounds})`,
        board: duringSweep.p99,
        unit: 'ms',
        baselineLabel: 'bare node:http, no sweep',
        baseline: bare.p99,
        ratio: duringSweep.p99 / bare.p99,
        // No goal: the sweep rows and the GET rows of the reports scenario judge this path.
        goal: '',
        met: null,
      });
    }
  } finally {
    sampler?.stop();
    // A board being profiled writes its profile on the way out: give it time.
    await board?.stop(options.cpuProfDir === null ? 10_000 : 60_000);
    await fleet.stop();
  }
}

/** The fleet the scenario serves: the same machines every run for a given N. */
function fleetOf(ctx: BenchContext, n: number): Omit<ServeRequest, 'id' | 'type'> {
  const { options } = ctx;
  return {
    machines: n,
    blackHoleShare: options.blackHoleShare,
    refusingShare: options.refusingShare,
    slowShare: options.slowShare,
    slowMs: options.slowMs,
    seed: 42 + n,
  };
}

/**
 * A bare client's cold and warm sweeps (bench/bare-sweep.ts, HTTP by hand on node:net or
 * through undici) of the same fleet, served by a simulator of its own: the board's then starts
 * afresh, its agents at their first answer.
 */
async function bareFleetSweeps(
  ctx: BenchContext,
  n: number,
  client: 'net' | 'undici',
): Promise<BareSweeps> {
  const fleet = await Fleet.start();
  try {
    const served = await fleet.serve(fleetOf(ctx, n));
    const machinesFile = join(ctx.tmp, `fleet-${n}-machines.json`);
    writeFileSync(machinesFile, JSON.stringify(served.machines));
    const bare = await bareSweeps(machinesFile, {
      sweeps: ctx.options.sweepsMeasured,
      timeoutMs: ctx.options.pollTimeoutS * 1000,
      concurrency: BOARD_SWEEP_CONCURRENCY,
      client,
    });
    ctx.log(
      `fleet of ${count(n)}: a bare client's (${client}) sweeps took ${bare.warm.map((ms) => `${ms} ms`).join(', ')} (cold ${bare.cold} ms, peak RSS ${bare.peakRssMb.toFixed(0)} MB); machines that answered in each: ${bare.answered.join(', ')}`,
    );
    return bare;
  } finally {
    await fleet.stop();
  }
}

const AUTH = (t: string) => ({ Authorization: `Bearer ${t}` });

async function boardThroughput(
  ctx: BenchContext,
  board: Program,
  boardToken: string,
  bytesFile: string,
  n: number,
  sizeMb: number,
): Promise<void> {
  const { wrkRounds: rounds, wrkSeconds: seconds } = ctx.options;
  const bare = await startBare(['--bytes', bytesFile]);
  let result: Comparison;
  try {
    result = await alternate(
      rounds,
      {
        url: `${board.url}/api/board`,
        connections: 8,
        durationS: seconds,
        headers: AUTH(boardToken),
      },
      { url: `${bare.url}/api/board`, connections: 8, durationS: seconds },
    );
  } finally {
    await bare.stop();
  }
  noteWrkErrors(ctx, 'GET /api/board', result.board);
  noteWrkErrors(ctx, 'bare GET', result.bare);
  const label = `${count(n)} machines, ${sizeMb.toFixed(1)} MB, wrk -c8, best of ${rounds}`;
  const ratio = result.board.requestsPerSec / result.bare.requestsPerSec;
  ctx.rows.push({
    what: `GET /api/board throughput, ${label}`,
    board: result.board.requestsPerSec,
    unit: 'req/s',
    baselineLabel: 'bare node:http',
    baseline: result.bare.requestsPerSec,
    ratio,
    goal: '≥ 0.8 × bare',
    met: ratio >= 0.8,
  });
  ctx.rows.push({
    what: `GET /api/board p99, ${label}`,
    board: result.board.p99,
    unit: 'ms',
    baselineLabel: 'bare node:http',
    baseline: result.bare.p99,
    ratio: result.board.p99 / result.bare.p99,
    goal: '',
    met: null,
  });
}

/** GET /api/board p99 on the large board while it sweeps (it sweeps back to back). */
export async function p99DuringSweep(
  ctx: BenchContext,
  board: Program,
  boardToken: string,
): Promise<WrkResult> {
  const { wrkRounds: rounds, wrkSeconds: seconds } = ctx.options;
  const result = await bestOf(rounds, {
    url: `${board.url}/api/board`,
    connections: P99_CONNECTIONS,
    durationS: seconds,
    headers: AUTH(boardToken),
  });
  noteWrkErrors(ctx, 'GET /api/board during sweep', result);
  return result;
}

/** The same bytes from a bare server, measured once the board has stopped (no sweep). */
async function p99Bare(ctx: BenchContext, bytesFile: string): Promise<WrkResult> {
  const { wrkRounds: rounds, wrkSeconds: seconds } = ctx.options;
  const bare = await startBare(['--bytes', bytesFile]);
  try {
    return await bestOf(rounds, {
      url: `${bare.url}/api/board`,
      connections: P99_CONNECTIONS,
      durationS: seconds,
    });
  } finally {
    await bare.stop();
  }
}

const P99_CONNECTIONS = 2;

async function relayOverhead(
  ctx: BenchContext,
  board: Program,
  boardToken: string,
  machines: readonly SimMachine[],
): Promise<void> {
  const target = machines.find((m) => m.kind === 'ok');
  if (target === undefined) throw new Error('no answering machine to relay to');
  const viaBoard = new Pool(board.url, { connections: 1 });
  const direct = new Pool(target.url, { connections: 1 });
  const boardTimes: number[] = [];
  const directTimes: number[] = [];
  const call = async (pool: Pool, path: string, key: string, into: number[] | null) => {
    const t0 = nowMs();
    const response = await pool.request({
      method: 'POST',
      path,
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await response.body.text();
    into?.push(nowMs() - t0);
    if (response.statusCode !== 200 || !text.includes('"ok":true')) {
      throw new Error(`relay answered ${response.statusCode}: ${text.slice(0, 200)}`);
    }
  };
  try {
    const calls = ctx.options.relayCalls;
    for (let i = 0; i < calls + 50; i++) {
      // Alternate, so a sweep or a disk hiccup falls on both series alike; the first 50 warm up.
      await call(
        viaBoard,
        `/api/do/${target.name}/backup/start`,
        boardToken,
        i < 50 ? null : boardTimes,
      );
      await call(direct, '/api/do/backup/start', target.key, i < 50 ? null : directTimes);
    }
  } finally {
    await viaBoard.close();
    await direct.close();
  }
  const overhead = median(boardTimes) - median(directTimes);
  ctx.log(
    `relay: board median ${median(boardTimes).toFixed(2)} ms, direct ${median(directTimes).toFixed(2)} ms`,
  );
  ctx.rows.push({
    what: 'POST /api/do relay, median (overhead = board − direct)',
    board: median(boardTimes),
    unit: 'ms',
    baselineLabel: 'agent direct',
    baseline: median(directTimes),
    ratio: median(boardTimes) / median(directTimes),
    goal: `overhead < 2 ms (is ${overhead.toFixed(2)} ms)`,
    met: overhead < 2,
  });
  ctx.rows.push({
    what: 'POST /api/do relay, p99',
    board: quantile(boardTimes, 0.99),
    unit: 'ms',
    baselineLabel: 'agent direct',
    baseline: quantile(directTimes, 0.99),
    ratio: quantile(boardTimes, 0.99) / quantile(directTimes, 0.99),
    goal: '',
    met: null,
  });
}

function noteWrkErrors(ctx: BenchContext, what: string, result: WrkResult): void {
  if (result.errors > 0)
    ctx.problems.push(`${what}: wrk saw ${result.errors} errors or non-2xx answers`);
  if (result.requests === 0 || Number.isNaN(result.requests))
    ctx.problems.push(`${what}: wrk made no requests`);
}
