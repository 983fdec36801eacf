import {
  configuredMachines,
  nextSweeps,
  sweepMark,
  token,
  writeBoardConfig,
} from '../board-kit.js';
import { machineLabels } from '../fleet/labels.js';
import { cpuSeconds, Fleet, type Program } from '../processes.js';
import { median, sleep } from '../stats.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';

/** One board sweeping its own simulated fleet, whose agents carry 8 labels or none. */
interface SweepSide {
  labels: boolean;
  fleet: Fleet;
  board: Program;
}

/** A board's warm sweeps over a stretch: their durations and its CPU seconds per sweep. */
interface Sweeps {
  durationsMs: number[];
  cpuPerSweepS: number;
}

/**
 * Two boards at once, each configured with N simulated agents (the fleet scenario's mix: 10 %
 * black holes, 10 % refusing, 5 % slow), one fleet's overviews carrying 8 labels and the other's
 * none; both sweep back to back over the same stretch: warm sweep time and the board's CPU per
 * sweep (its poller thread's work included), with ÷ without.
 */
export async function labelsSweep(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const n = options.fleetSizes[1];
  const measured = options.mode === 'quick' ? 2 : 5;
  const boardToken = token();
  const sides: SweepSide[] = [];
  try {
    for (const labels of [true, false]) {
      const fleet = await Fleet.start();
      const label = labels ? 'labels-sweep-with' : 'labels-sweep-without';
      let board: Program | null = null;
      try {
        const served = await fleet.serve({
          machines: n,
          blackHoleShare: options.blackHoleShare,
          refusingShare: options.refusingShare,
          slowShare: options.slowShare,
          slowMs: options.slowMs,
          // Another seed each: the same mix of kinds, on another port of the same addresses.
          seed: (labels ? 43 : 42) + n,
          labels,
        });
        const dir = writeBoardConfig(scenarioDir(ctx, label), {
          board_token: boardToken,
          sweep_interval: 1,
          poll_timeout: options.pollTimeoutS,
          machines: configuredMachines(served.machines),
        });
        board = await launchBoard(ctx, dir, label);
      } catch (error) {
        await fleet.stop();
        throw error;
      }
      sides.push({ labels, fleet, board });
    }
    const timeoutMs = (measured + 3) * (n / 50 + options.pollTimeoutS * 1000 * 6 + 10_000);
    // The first (cold) sweep of each is not measured.
    await Promise.all(
      sides.map((s) => nextSweeps(s.board.url, boardToken, 1, { everyMs: 500, timeoutMs })),
    );
    const [withLabels, without] = (await Promise.all(
      sides.map((s) => watchSweeps(s.board, boardToken, measured, timeoutMs)),
    )) as [Sweeps, Sweeps];
    ctx.log(
      `labels: sweeps with labels ${withLabels.durationsMs.join(', ')} ms, without ${without.durationsMs.join(', ')} ms`,
    );
    const sweepWith = median(withLabels.durationsMs) / 1000;
    const sweepWithout = median(without.durationsMs) / 1000;
    ctx.rows.push({
      what: `sweep time, warm (median of ${measured}), ${count(n)} machines with 8 labels each (10 % black holes, 10 % refusing), both boards sweeping back to back over the same stretch`,
      board: sweepWith,
      unit: 's',
      baselineLabel: 'without labels',
      baseline: sweepWithout,
      ratio: sweepWith / sweepWithout,
      goal: '≤ 1.05 × without',
      met: sweepWith <= 1.05 * sweepWithout,
    });
    const cpuRatio = withLabels.cpuPerSweepS / without.cpuPerSweepS;
    ctx.rows.push({
      what: `board CPU per warm sweep (all its threads, over the same ${measured} sweeps), ${count(n)} machines with 8 labels each`,
      board: withLabels.cpuPerSweepS,
      unit: 's',
      baselineLabel: 'without labels',
      baseline: without.cpuPerSweepS,
      ratio: cpuRatio,
      goal: '≤ 1.05 × without',
      met: cpuRatio <= 1.05,
    });
    for (const side of sides) await checkSweptLabels(ctx, side, boardToken, n);
  } finally {
    for (const side of sides) {
      await side.board.stop(options.cpuProfDir === null ? 10_000 : 60_000);
      await side.fleet.stop();
    }
  }
}

/**
 * Waits for the end of the sweep under way, then for `count` more: their durations (the board's
 * own `sweep_ms`) and the board's CPU between the first end and the last over `count`.
 */
async function watchSweeps(
  board: Program,
  boardToken: string,
  count: number,
  timeoutMs: number,
): Promise<Sweeps> {
  const deadline = Date.now() + timeoutMs;
  let last = (await sweepMark(board.url, boardToken)).sweptAt;
  let cpuAtStart = Number.NaN;
  const durationsMs: number[] = [];
  while (durationsMs.length < count) {
    if (Date.now() > deadline)
      throw new Error(`only ${durationsMs.length} of ${count} sweeps ended`);
    await sleep(250);
    const mark = await sweepMark(board.url, boardToken);
    if (mark.sweptAt === last || mark.sweepMs === null) continue;
    last = mark.sweptAt;
    if (Number.isNaN(cpuAtStart)) cpuAtStart = cpuSeconds(board.pid);
    else durationsMs.push(mark.sweepMs);
  }
  return { durationsMs, cpuPerSweepS: (cpuSeconds(board.pid) - cpuAtStart) / count };
}

/** --check: each answering machine of the view shows its agent's labels (none without). */
async function checkSweptLabels(
  ctx: BenchContext,
  side: SweepSide,
  boardToken: string,
  n: number,
): Promise<void> {
  const response = await fetch(`${side.board.url}/api/board`, {
    headers: { authorization: `Bearer ${boardToken}` },
  });
  const view = (await response.json()) as {
    machines: { name: string; state: string; labels: Record<string, string> }[];
  };
  let wrong = 0;
  let up = 0;
  for (const m of view.machines) {
    if (m.state !== 'up') continue;
    up += 1;
    const expected = side.labels ? machineLabels(Number(m.name.slice(1)) - 1) : {};
    if (JSON.stringify(m.labels) !== JSON.stringify(expected)) wrong += 1;
  }
  if (view.machines.length !== n || wrong > 0 || up === 0)
    ctx.problems.push(
      `labels: the swept view ${side.labels ? 'with' : 'without'} labels lists ${view.machines.length} of ${n} machines, ${up} up, ${wrong} with other labels than their agents'`,
    );
}
