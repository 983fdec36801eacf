import type { CheckResult } from '../../shared/checks/wire.js';
import type { CheckSettings } from './check-config.js';

/** The runner name of the board's own runs, and of a push check's beats. */
export const BOARD_RUNNER = '@board';
export const PUSH_RUNNER = '@push';

export type CheckState = 'up' | 'down' | 'unknown';

/** One runner's last result of one check, and its run of failures or successes. */
export interface RunnerView {
  /** A machine's name, `@board` or `@push` (never a machine's name). */
  machine: string;
  ok: boolean;
  ms: number;
  detail: string;
  at: string;
}

/** A check as GET /api/checks shows it (uptime comes from history; see ports.ts). */
export interface CheckStatus {
  name: string;
  type: CheckSettings['type'];
  state: CheckState;
  /** ISO 8601 time of the last change of state; null while unknown. */
  since: string | null;
  runners: RunnerView[];
}

/** A change of a check's state: what the `check` event carries. */
export interface CheckChange {
  check: string;
  state: CheckState;
  previous: CheckState;
  at: number;
  /** The failing runners and their detail (machine text: escape wherever shown). */
  runners: { machine: string; detail: string }[];
}

/**
 * The checks' state on this board: every runner's results go in (`take`), state changes come
 * out to subscribers. One per board, configured again on reload.
 */
export class CheckBook {
  private checks = new Map<string, CheckSettings>();
  private readonly last = new Map<string, Map<string, RunnerView>>();
  private readonly listeners: ((change: CheckChange) => void)[] = [];
  private readonly resultListeners: ((runner: string, result: CheckResult) => void)[] = [];
  private readonly removedListeners: ((check: string) => void)[] = [];
  private readonly configuredListeners: ((checks: readonly CheckSettings[]) => void)[] = [];

  configure(checks: readonly CheckSettings[]): void {
    const before = this.checks;
    this.checks = new Map(checks.map((c) => [c.name, c]));
    for (const name of before.keys())
      if (!this.checks.has(name)) for (const l of this.removedListeners) l(name);
    for (const l of this.configuredListeners) l(checks);
    for (const name of [...this.last.keys()]) if (!this.checks.has(name)) this.last.delete(name);
  }

  settings(): CheckSettings[] {
    return [...this.checks.values()];
  }

  /** A runner's results (a machine's overview, the board's own run, a push beat). */
  take(runner: string, results: readonly CheckResult[]): void {
    for (const r of results) {
      if (!this.checks.has(r.name)) continue;
      let runners = this.last.get(r.name);
      if (runners === undefined) {
        runners = new Map();
        this.last.set(r.name, runners);
      }
      runners.set(runner, { machine: runner, ok: r.ok, ms: r.ms, detail: r.detail, at: r.at });
      for (const l of this.resultListeners) l(runner, r);
    }
  }

  /**
   * Every result taken of a configured check, as it is taken (history records them; a runner's
   * overview repeats its last results, so a listener keeps only what is newer than it saw).
   */
  onResult(listener: (runner: string, result: CheckResult) => void): void {
    this.resultListeners.push(listener);
  }

  /** The checks were configured (at the start and at each reload): who runs them follows. */
  onConfigured(listener: (checks: readonly CheckSettings[]) => void): void {
    this.configuredListeners.push(listener);
  }

  /** A check was removed from the config (at a reload). */
  onRemoved(listener: (check: string) => void): void {
    this.removedListeners.push(listener);
  }

  subscribe(listener: (change: CheckChange) => void): void {
    this.listeners.push(listener);
  }

  list(): CheckStatus[] {
    return [...this.checks.values()].map((c) => ({
      name: c.name,
      type: c.type,
      state: 'unknown',
      since: null,
      runners: [...(this.last.get(c.name)?.values() ?? [])],
    }));
  }
}
