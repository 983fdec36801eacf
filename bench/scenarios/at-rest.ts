import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { token, writeBoardConfig } from '../board-kit.js';
import { type Program, startBare } from '../processes.js';
import { median, sleep } from '../stats.js';
import { type AtRest, type BenchContext, count, launchBoard, RssSampler } from './context.js';

/** The memory goals (docs/performance.md): MB per 1,000 announced machines at rest; empty ÷ bare. */
const PER_THOUSAND_GOAL_MB = 4;
const EMPTY_GOAL = 2;

/**
 * The empty board and a bare node:http server (bench/bare.ts --bytes, a small body) at rest, as
 * the agent-footprint scenario measures the agent: both started one after the other (the order
 * reversed every other start), their RSS sampled every 250 ms over a window after the start,
 * the median of those samples; the figure is the median over the starts.
 */
export async function emptyBoardAtRest(ctx: BenchContext): Promise<AtRest> {
  const quick = ctx.options.mode === 'quick';
  const starts = quick ? 1 : 3;
  // After the start's garbage is given back: the empty board's RSS falls by a fifth to a third
  // some 9 to 16 s after it starts. A full run's window takes in two of the board's 5-s ticks.
  const [fromS, toS] = quick ? [20, 24] : [20, 30];
  const body = join(ctx.tmp, 'at-rest.json');
  writeFileSync(body, '{"ok":true}');
  const board: number[] = [];
  const bare: number[] = [];
  for (let start = 0; start < starts; start += 1) {
    const running: Program[] = [];
    try {
      const launch = {
        board: async () => {
          const dir = writeBoardConfig(join(ctx.tmp, `empty-${start}`), { board_token: token() });
          return launchBoard(ctx, dir, `empty-${start}`);
        },
        bare: () => startBare(['--bytes', body]),
      };
      const order = start % 2 === 0 ? (['board', 'bare'] as const) : (['bare', 'board'] as const);
      const byName = new Map<string, Program>();
      for (const name of order) {
        const p = await launch[name]();
        running.push(p);
        byName.set(name, p);
      }
      await sleep(fromS * 1000);
      const samplers = order.map((name) => new RssSampler(byName.get(name)?.pid ?? 0, 250));
      await sleep((toS - fromS) * 1000);
      order.forEach((name, i) => {
        const sampler = samplers[i] as RssSampler;
        sampler.stop();
        const mb = median(sampler.samples.map((x) => x.mb));
        (name === 'board' ? board : bare).push(mb);
      });
    } finally {
      await Promise.all(running.map((p) => p.stop()));
    }
  }
  const result: AtRest = {
    boardMb: median(board),
    bareMb: median(bare),
    method: `median of samples ${fromS}–${toS} s after starting, median of ${starts} start${starts === 1 ? '' : 's'}`,
  };
  ctx.log(
    `empty board at rest ${board.map((v) => v.toFixed(1)).join('/')} MB, bare node:http ${bare.map((v) => v.toFixed(1)).join('/')} MB`,
  );
  return result;
}

/**
 * The memory goals stated per machine and as a ratio: the board's RSS at rest with `machines`
 * announced less the empty board's at rest, per 1,000 machines; the empty board beside bare.
 */
export function atRestRows(ctx: BenchContext, machines: number, restingMb: number): void {
  const empty = ctx.emptyBoard;
  const perThousand = ((restingMb - empty.boardMb) / machines) * 1000;
  ctx.rows.push({
    what: `board RSS at rest, ${count(machines)} announced machines (median over the rest phase), per 1,000 machines over the empty board at rest: ${perThousand.toFixed(2)} MB`,
    board: restingMb,
    unit: 'MB',
    baselineLabel: 'empty board at rest',
    baseline: empty.boardMb,
    ratio: restingMb / empty.boardMb,
    goal: `≤ ${PER_THOUSAND_GOAL_MB} MB per 1,000 machines (is ${perThousand.toFixed(2)})`,
    met: perThousand <= PER_THOUSAND_GOAL_MB,
  });
  ctx.rows.push({
    what: `empty board RSS at rest (${empty.method}, started beside the bare server)`,
    board: empty.boardMb,
    unit: 'MB',
    baselineLabel: 'bare node:http at rest',
    baseline: empty.bareMb,
    ratio: empty.boardMb / empty.bareMb,
    goal: `≤ ${EMPTY_GOAL} × bare`,
    met: empty.boardMb <= EMPTY_GOAL * empty.bareMb,
  });
}
