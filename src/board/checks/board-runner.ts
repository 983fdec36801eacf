import type { Condition } from '../../shared/checks/conditions.js';
import { type RunOptions, runCheck } from '../../shared/checks/run-check.js';
import type { CheckResult, HandedCheck } from '../../shared/checks/wire.js';
import { BOARD_RUNNER } from './check-book.js';
import type { CheckSettings } from './check-config.js';
import { privateAddressGuard } from './private-address.js';

/** How a check is run once (runCheck; tests may hand another). */
export type RunOne = (
  check: HandedCheck,
  conditions: readonly Condition[],
  options: RunOptions,
) => Promise<CheckResult>;

interface Scheduled {
  settings: CheckSettings;
  /** What the check's runs depend on: a reload that changes it starts the check again. */
  key: string;
  timer: NodeJS.Timeout;
  running: boolean;
}

/**
 * The board as a runner: every check with `runners.board: true` runs here at its interval and
 * its results go to the check book as `@board`. Its targets are guarded after DNS resolution,
 * at each run: a private address fails the run unless the check has `allow_private: true`.
 * Of several boards on one store, the owner of the check's name runs it (`runs`).
 */
export class BoardRunner {
  private readonly scheduled = new Map<string, Scheduled>();
  private stopped = false;

  constructor(
    private readonly take: (runner: string, results: CheckResult[]) => void,
    /** Whether this board runs the check now (asked at each run: owners change). */
    private readonly runs: (check: string) => boolean,
    private readonly runOne: RunOne = runCheck,
  ) {}

  /** The checks of the config (at the start and at each reload). */
  configure(checks: readonly CheckSettings[]): void {
    if (this.stopped) return;
    const wanted = new Map<string, CheckSettings>();
    for (const c of checks) if (c.runners.board && c.handed !== null) wanted.set(c.name, c);
    for (const [name, s] of this.scheduled) {
      const next = wanted.get(name);
      if (next === undefined || keyOf(next) !== s.key) {
        clearInterval(s.timer);
        this.scheduled.delete(name);
      }
    }
    for (const [name, settings] of wanted) {
      if (this.scheduled.has(name)) {
        // Same runs: the new settings (labels, thresholds) are taken as they are.
        (this.scheduled.get(name) as Scheduled).settings = settings;
        continue;
      }
      const entry: Scheduled = {
        settings,
        key: keyOf(settings),
        timer: setInterval(() => this.run(entry), settings.intervalMs),
        running: false,
      };
      entry.timer.unref();
      this.scheduled.set(name, entry);
      // The first run at once, not an interval after the start.
      setImmediate(() => this.run(entry));
    }
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.scheduled.values()) clearInterval(s.timer);
    this.scheduled.clear();
  }

  private run(entry: Scheduled): void {
    const { settings } = entry;
    // A run still going (a slow target) is not stacked on.
    if (entry.running || this.scheduled.get(settings.name) !== entry) return;
    if (!this.runs(settings.name)) return;
    entry.running = true;
    const options: RunOptions = settings.allowPrivate ? {} : { guard: privateAddressGuard };
    this.runOne(settings.handed as HandedCheck, settings.conditions, options)
      .then((result) => {
        // Stopped or reloaded away meanwhile: the result is no longer this check's.
        if (this.scheduled.get(settings.name) === entry) this.take(BOARD_RUNNER, [result]);
      })
      .catch(() => undefined)
      .finally(() => {
        entry.running = false;
      });
  }
}

function keyOf(s: CheckSettings): string {
  return JSON.stringify([s.handed, s.intervalMs, s.allowPrivate, s.conditions.map((c) => c.text)]);
}
