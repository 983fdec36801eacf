import { describe, expect, it } from 'vitest';
import { parseOptions } from '../bench/options.js';
import { atRestRows } from '../bench/scenarios/at-rest.js';
import type { BenchContext } from '../bench/scenarios/context.js';

function context(boardMb: number, bareMb: number): BenchContext {
  return {
    options: parseOptions(['--quick']),
    tmp: '/nonexistent',
    rows: [],
    problems: [],
    emptyBoardRssMb: boardMb,
    emptyBoard: { boardMb, bareMb, method: 'test' },
    log: () => undefined,
  };
}

/**
 * The memory rows at rest: what the announced machines add to the empty board, per 1,000, and
 * the empty board beside a bare node:http server.
 */
describe('the bench rows of RSS at rest', () => {
  it('states the RSS the machines add per 1,000 and judges it against 4 MB', () => {
    const ctx = context(60, 40);
    atRestRows(ctx, 3000, 66);
    const [perMachine] = ctx.rows;
    expect(perMachine?.board).toBe(66);
    expect(perMachine?.baseline).toBe(60);
    expect(perMachine?.goal).toContain('is 2.00');
    expect(perMachine?.met).toBe(true);

    const over = context(60, 40);
    atRestRows(over, 3000, 75);
    expect(over.rows[0]?.goal).toContain('is 5.00');
    expect(over.rows[0]?.met).toBe(false);
  });

  it('judges the empty board against twice the bare server', () => {
    const within = context(80, 40);
    atRestRows(within, 3000, 90);
    expect(within.rows[1]?.ratio).toBe(2);
    expect(within.rows[1]?.met).toBe(true);

    const over = context(81, 40);
    atRestRows(over, 3000, 90);
    expect(over.rows[1]?.met).toBe(false);
  });

  it('leaves a figure missing when the empty board was not measured', () => {
    const ctx = context(Number.NaN, Number.NaN);
    atRestRows(ctx, 3000, 66);
    expect(Number.isFinite(ctx.rows[0]?.baseline)).toBe(false);
    expect(ctx.rows[0]?.met).toBe(false);
  });
});
