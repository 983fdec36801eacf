import { runCheck } from '../../shared/checks/run-check.js';
import type { Clock } from '../domain/clock.js';
import { CheckRunner } from './check-runner.js';

export { CheckRunner } from './check-runner.js';

/** The agent's runner over the shared probes and conditions. */
export function checkRunner(clock: Clock): CheckRunner {
  return new CheckRunner({
    clock,
    random: Math.random,
    run: (check, conditions) => runCheck(check, conditions, { now: () => new Date(clock.now()) }),
  });
}
