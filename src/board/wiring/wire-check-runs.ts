import type { Clock } from '../../shared/clock.js';
import { BoardRunner, type RunOne } from '../checks/board-runner.js';
import type { CheckBook } from '../checks/check-book.js';
import { PushMonitor } from '../checks/push-monitor.js';
import type { Ownership } from '../cluster/ownership.js';

/** The checks this board runs itself: `runners.board: true`, push checks' beats and missing beats. */
export interface CheckRuns {
  push: PushMonitor;
  board: BoardRunner;
  stop(): void;
}

/**
 * Starts what the board runs of the checks, configured from the check book now and at each
 * reload. Of several boards on one store, the owner of a check's name (owners.ts) runs it and
 * reports its missing beats.
 */
export function wireCheckRuns(
  checks: CheckBook,
  clock: Clock,
  ownership: Pick<Ownership, 'owns'>,
  runOne?: RunOne,
): CheckRuns {
  const take = (runner: string, results: Parameters<CheckBook['take']>[1]) =>
    checks.take(runner, results);
  const push = new PushMonitor(take, clock, (name) => ownership.owns(name));
  push.configure(checks.settings());
  const board = new BoardRunner(take, (name) => ownership.owns(name), runOne);
  board.configure(checks.settings());
  checks.onConfigured((settings) => {
    push.configure(settings);
    board.configure(settings);
  });
  return {
    push,
    board,
    stop: () => {
      push.stop();
      board.stop();
    },
  };
}
