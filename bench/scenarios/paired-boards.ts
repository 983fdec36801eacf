import { writeBoardConfig } from '../board-kit.js';
import type { Program } from '../processes.js';
import { reportScript } from '../wrk.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';
import { firstAnnounce } from './report-flood.js';

/** One of two boards with the same announced fleet: its overviews carry the part (`on`) or not. */
export interface PairedSide {
  on: boolean;
  board: Program;
  /** The wrk script of its report flood. */
  script: string;
}

/** What the two boards are told apart by. */
export interface Pairing {
  /** The scenario's name (its boards' directories, log lines and problems). */
  scenario: string;
  /** What the overviews of the first board carry, in words for the log. */
  what: string;
  /** The report option that puts it into a body (bench/fleet/overview.ts). */
  part: 'labels' | 'machineNow';
  machines: number;
  /** Overviews taking turns in the floods: prime to `machines`. */
  variants: number;
  registrationToken: string;
  boardToken: string;
  /** More of board.yaml, the same for both. */
  config?: Record<string, unknown>;
}

/**
 * Two boards at once, each with the same announced fleet, the first one's overviews carrying
 * the part and the second's not; every machine announced once on each, as fast as it answers.
 * Each board is pushed to `sides` once started, so that the caller stops what was started.
 */
export async function startPairedBoards(
  ctx: BenchContext,
  p: Pairing,
  sides: PairedSide[],
): Promise<void> {
  if (p.machines % p.variants === 0)
    throw new Error(`${p.machines} machines: not prime to ${p.variants}`);
  for (const on of [true, false]) {
    const label = `${p.scenario}-${on ? 'with' : 'without'}`;
    const dir = writeBoardConfig(scenarioDir(ctx, label), {
      board_token: p.boardToken,
      registration_token: p.registrationToken,
      max_announced: p.machines + 1000,
      ...p.config,
    });
    const script = reportScript(ctx.tmp, p.machines, p.registrationToken, {
      [p.part]: on,
      variants: p.variants,
      file: `${label}.lua`,
    });
    sides.push({ on, board: await launchBoard(ctx, dir, label), script });
  }
  for (const side of sides) {
    const run = await firstAnnounce(side.board.url, p.registrationToken, p.machines, 64, {
      [p.part]: side.on,
    });
    ctx.log(
      `${p.scenario}: ${count(run.ok)} machines announced ${side.on ? 'with' : 'without'} ${p.what} in ${(run.elapsedMs / 1000).toFixed(1)} s`,
    );
    if (run.failed > 0)
      ctx.problems.push(`${p.scenario}: ${run.failed} of ${p.machines} first reports not 200`);
  }
}
