import type { Clock } from '../../shared/clock.js';
import type { CheckBook } from '../checks/check-book.js';
import { PushMonitor } from '../checks/push-monitor.js';
import type { Ownership } from '../cluster/ownership.js';

/** The checks this board runs itself: push checks' beats and their missing beats. */
export interface CheckRuns {
  push: PushMonitor;
  stop(): void;
}

/**
 * Starts what the board runs of the checks, configured from the check book now and at each
 * reload. Of several boards on one store, the owner of a check's name (owners.ts) reports its
 * missing beats.
 */
export function wireCheckRuns(
  checks: CheckBook,
  clock: Clock,
  ownership: Pick<Ownership, 'owns'>,
): CheckRuns {
  const take = (runner: string, results: Parameters<CheckBook['take']>[1]) =>
    checks.take(runner, results);
  const push = new PushMonitor(take, clock, (name) => ownership.owns(name));
  push.configure(checks.settings());
  checks.onConfigured((settings) => push.configure(settings));
  return {
    push,
    stop: () => {
      push.stop();
    },
  };
}
