import type { CheckSettings } from './check-config.js';

export type CheckState = 'up' | 'down' | 'unknown';

/** One runner's results of one check so far: its last result and its runs. */
export interface RunnerRun {
  machine: string;
  ok: boolean;
  ms: number;
  detail: string;
  at: string;
  /** `at` in ms since the epoch (results not newer than this are repeats). */
  atMs: number;
  /** Failures in a row up to the last result (0 after a success). */
  failures: number;
  /** Successes in a row up to the last result (0 after a failure). */
  successes: number;
  certExpiresAt: string | null;
}

/** How old a runner's last result may be and still count: 3 intervals and a minute. */
export function freshForMs(check: CheckSettings): number {
  const every = check.push === null ? check.intervalMs : check.push.periodMs + check.push.graceMs;
  return 3 * every + 60_000;
}

/**
 * The state a check's counting runners make, given its state before (docs/checks.md "State"):
 * - a runner is *failing* when its last `failureThreshold` results failed, *passing* when its
 *   last `successThreshold` results were good;
 * - `down` when at least `quorum` runners are failing;
 * - `up` when fewer than `quorum` runners are failing and at least one runner is passing;
 * - neither: the state stays as it was (from `unknown`: still unknown). No counting runner at
 *   all: `unknown`.
 */
export function decide(
  check: CheckSettings,
  runs: readonly RunnerRun[],
  previous: CheckState,
): CheckState {
  if (runs.length === 0) return 'unknown';
  let failing = 0;
  let passing = 0;
  for (const r of runs) {
    if (r.failures >= check.failureThreshold) failing += 1;
    if (r.successes >= check.successThreshold) passing += 1;
  }
  if (failing >= check.runners.quorum) return 'down';
  if (passing > 0) return 'up';
  return previous;
}

/** A result taken into a runner's run: counts carry on or start again. */
export function advance(
  before: RunnerRun | undefined,
  machine: string,
  r: { ok: boolean; ms: number; detail: string; at: string; cert_expires_at?: string },
  atMs: number,
): RunnerRun {
  return {
    machine,
    ok: r.ok,
    ms: r.ms,
    detail: r.detail,
    at: r.at,
    atMs,
    failures: r.ok ? 0 : (before?.failures ?? 0) + 1,
    successes: r.ok ? (before?.successes ?? 0) + 1 : 0,
    certExpiresAt: r.cert_expires_at ?? null,
  };
}
