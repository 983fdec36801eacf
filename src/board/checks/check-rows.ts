import type { Labels } from '../../shared/labels.js';
import type { Scope, Scoped } from '../auth/roles.js';
import { BOARD_RUNNER, type CheckBook, type CheckStatus, PUSH_RUNNER } from './check-book.js';
import type { CheckHistoryPort } from './ports.js';

/** A check as GET /api/checks and MCP list_checks answer it. */
export interface CheckRow extends CheckStatus {
  /** The share of the last 24 hours it was up; null: no history. */
  uptime_24h: number | null;
}

/** What a caller may see: a check by its labels, a runner by its machine. */
export interface CheckSight {
  check(name: string, labels: Labels): boolean;
  machine(name: string): boolean;
}

/** What a scope sees of the checks: checks by their labels, runners by their machines. */
export function checkSight(
  scope: Pick<Scope, 'sees'>,
  machine: (name: string) => Scoped | undefined,
): CheckSight {
  return {
    check: (name, labels) => scope.sees({ name, boardLabels: labels }),
    machine: (name) => {
      const m = machine(name);
      return m !== undefined && scope.sees(m);
    },
  };
}

/** Whether a caller sees a runner's rows: the board's and push's always, a machine if in sight. */
export function seesRunner(sight: CheckSight, runner: string): boolean {
  return runner === BOARD_RUNNER || runner === PUSH_RUNNER || sight.machine(runner);
}

const DAY_MS = 86_400_000;

/**
 * The checks a caller sees, with their runners' rows: a check whose labels its scope matches,
 * and of its runners the board's and push's and the machines it sees.
 */
export async function checkRows(
  book: CheckBook,
  sight: CheckSight,
  history: CheckHistoryPort | null,
  now: number,
): Promise<CheckRow[]> {
  const labels = new Map(book.settings().map((c) => [c.name, c.labels]));
  const shown = book.list().filter((c) => {
    const l = labels.get(c.name);
    return l !== undefined && sight.check(c.name, l);
  });
  return Promise.all(
    shown.map(async (c) => ({
      ...c,
      uptime_24h: history === null ? null : await history.uptime(c.name, now - DAY_MS, now),
      runners: c.runners.filter((r) => seesRunner(sight, r.machine)),
    })),
  );
}
