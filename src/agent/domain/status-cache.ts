import type { ServiceState } from '../../shared/wire/overview.js';
import type { Clock } from './clock.js';

/** One status check: an argv whose exit 0 means "running". */
export interface StatusCheck {
  name: string;
  argv: readonly string[];
  cwd: string | null;
  env?: Readonly<Record<string, string>> | undefined;
}

/** Runs one check to an answer; time-outs and failures answer 'unknown'. */
export type CheckRunner = (check: StatusCheck) => Promise<ServiceState>;

interface Entry {
  state: ServiceState;
  checkedAt: number | null;
  running: Promise<void> | null;
}

/**
 * The states of the services that have a status command, served from a cache that never waits
 * for a check: a stale read returns the last known state (unknown before the first answer) and
 * starts a fresh check in the background. Each check runs at most once at a time.
 */
export class StatusCache {
  private readonly entries = new Map<string, Entry>();
  private readonly checks = new Map<string, StatusCheck>();

  constructor(
    checks: readonly StatusCheck[],
    private readonly run: CheckRunner,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {
    for (const check of checks) {
      this.checks.set(check.name, check);
      this.entries.set(check.name, { state: 'unknown', checkedAt: null, running: null });
    }
  }

  /**
   * Takes the checks of a reloaded config: new ones start unknown, removed ones are forgotten,
   * one whose argv or cwd changed is checked afresh. A check already running just finishes.
   */
  setChecks(checks: readonly StatusCheck[]): void {
    const wanted = new Map(checks.map((c) => [c.name, c]));
    for (const name of this.checks.keys()) {
      if (!wanted.has(name)) {
        this.checks.delete(name);
        this.entries.delete(name);
      }
    }
    for (const check of checks) {
      const old = this.checks.get(check.name);
      this.checks.set(check.name, check);
      if (old !== undefined && JSON.stringify(old) === JSON.stringify(check)) continue;
      this.entries.set(check.name, { state: 'unknown', checkedAt: null, running: null });
    }
  }

  /** The cached state of a service with a status check (refreshing it if stale), else null. */
  state(name: string): ServiceState | null {
    const entry = this.entries.get(name);
    if (entry === undefined) return null;
    if (this.isStale(entry)) void this.refreshOne(name);
    return entry.state;
  }

  /** Checks every service now, in parallel; resolves when all have answered. */
  async refresh(): Promise<void> {
    await Promise.all([...this.checks.keys()].map((name) => this.refreshOne(name)));
  }

  /** Forgets the age of a service's state, so the next read checks again (after an action). */
  invalidate(name: string): void {
    const entry = this.entries.get(name);
    if (entry !== undefined) entry.checkedAt = null;
  }

  /** Checks one service unless a check of it is already running; resolves when it answered. */
  refreshOne(name: string): Promise<void> {
    const entry = this.entries.get(name);
    const check = this.checks.get(name);
    if (entry === undefined || check === undefined) return Promise.resolve();
    if (entry.running !== null) return entry.running;
    const running = this.run(check)
      .catch((): ServiceState => 'unknown')
      .then((state) => {
        entry.state = state;
        entry.checkedAt = this.clock.now();
        entry.running = null;
      });
    entry.running = running;
    return running;
  }

  private isStale(entry: Entry): boolean {
    return entry.checkedAt === null || this.clock.now() - entry.checkedAt >= this.ttlMs;
  }
}
