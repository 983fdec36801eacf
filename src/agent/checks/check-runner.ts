import { type Condition, ConditionError, parseCondition } from '../../shared/checks/conditions.js';
import {
  CHECK_DETAIL_MAX,
  type CheckResult,
  type HandedCheck,
  type HandedChecks,
} from '../../shared/checks/wire.js';
import type { Cancel, Clock } from '../domain/clock.js';

/** Runs one check once into its result (shared/checks/run-check.ts; tests inject their own). */
export type RunCheck = (
  check: HandedCheck,
  conditions: readonly Condition[],
) => Promise<CheckResult>;

/** Checks run at once at most: a thousand checks never open a thousand sockets together. */
export const RUNNING_MAX = 16;

export interface CheckRunnerDeps {
  clock: Clock;
  run: RunCheck;
  /** A number in [0, 1): where in its first interval each check first runs. */
  random: () => number;
  /** Parses one condition (throws ConditionError); default: the shared parser. */
  parse?: (text: string) => Condition;
  runningMax?: number;
}

/** One handed check as the runner keeps it: parsed once, its timer, its last result. */
interface Entry {
  check: HandedCheck;
  /** Its definition as handed, to tell an unchanged check from a changed one. */
  text: string;
  /** Null when a condition did not parse: the check does not run. */
  conditions: Condition[] | null;
  timer: Cancel | null;
  /** Waiting for a free slot, or running: not queued again. */
  busy: boolean;
  removed: boolean;
}

/**
 * The agent's checks: the definitions the board hands it (in memory only: after a restart the
 * board hands them again, since the version is "" then), each run at its interval, the first
 * runs spread over the first interval, at most RUNNING_MAX at once; the last result of each is
 * what the overview carries.
 */
export class CheckRunner {
  private version = '';
  private entries = new Map<string, Entry>();
  private readonly results = new Map<string, CheckResult>();
  private readonly queue: Entry[] = [];
  private running = 0;
  private urgent: () => void = () => undefined;

  constructor(private readonly deps: CheckRunnerDeps) {}

  /**
   * Called after a failed run, and after the first good run that follows a failed one: the
   * board counts runs it sees, so these go out soon rather than at the next report.
   */
  onUrgent(listener: () => void): void {
    this.urgent = listener;
  }

  /** The version of the checks last handed ("" before any). */
  get handedVersion(): string {
    return this.version;
  }

  /** Takes the checks handed by the board: new ones start, removed ones stop, unchanged ones go on. */
  take(handed: HandedChecks): void {
    const texts = new Map(handed.checks.map((c) => [c.name, JSON.stringify(c)]));
    for (const [name, old] of this.entries) {
      if (texts.get(name) === old.text) continue;
      old.removed = true;
      old.timer?.();
      old.timer = null;
      this.results.delete(name);
    }
    const next = new Map<string, Entry>();
    for (const check of handed.checks) {
      if (next.has(check.name)) continue;
      const text = texts.get(check.name) ?? '';
      const kept = this.entries.get(check.name);
      next.set(check.name, kept !== undefined && !kept.removed ? kept : this.entry(check, text));
    }
    this.entries = next;
    this.version = handed.version;
    for (const e of next.values()) {
      if (e.timer !== null || e.busy || e.conditions === null) continue;
      // Spread over the first interval: a thousand checks handed at once do not run at once.
      this.schedule(e, Math.floor(this.deps.random() * e.check.interval_s * 1000));
    }
  }

  /** What the overview carries: the version, and the last result of each check (when any). */
  state(): Record<string, unknown> {
    const checks: CheckResult[] = [];
    for (const name of this.entries.keys()) {
      const r = this.results.get(name);
      if (r !== undefined) checks.push(r);
    }
    return checks.length === 0
      ? { checks_version: this.version }
      : { checks_version: this.version, checks };
  }

  /** Stops every timer (the agent stops); runs under way finish unheard. */
  stop(): void {
    for (const e of this.entries.values()) {
      e.removed = true;
      e.timer?.();
      e.timer = null;
    }
    this.entries = new Map();
    this.queue.length = 0;
  }

  private entry(check: HandedCheck, text: string): Entry {
    const e: Entry = { check, text, conditions: [], timer: null, busy: false, removed: false };
    const parse = this.deps.parse ?? parseCondition;
    for (const [i, condition] of check.conditions.entries()) {
      try {
        e.conditions?.push(parse(condition));
      } catch (error) {
        const why =
          error instanceof ConditionError
            ? `${error.message} at position ${error.position + 1}`
            : error instanceof Error
              ? error.message
              : String(error);
        e.conditions = null;
        this.results.set(check.name, {
          name: check.name,
          ok: false,
          ms: 0,
          detail: clip(`condition ${i + 1} does not parse: ${why}: ${condition}`),
          at: new Date(this.deps.clock.now()).toISOString(),
        });
        break;
      }
    }
    return e;
  }

  private schedule(e: Entry, ms: number): void {
    e.timer = this.deps.clock.setTimeout(() => {
      e.timer = null;
      this.due(e);
    }, ms);
  }

  private due(e: Entry): void {
    if (e.removed || e.busy) return;
    e.busy = true;
    if (this.running < (this.deps.runningMax ?? RUNNING_MAX)) this.start(e);
    else this.queue.push(e);
  }

  private start(e: Entry): void {
    this.running += 1;
    const began = this.deps.clock.now();
    const conditions = e.conditions ?? [];
    let run: Promise<CheckResult>;
    try {
      run = this.deps.run(e.check, conditions);
    } catch (error) {
      run = Promise.reject(error);
    }
    // Never rejects: a failure becomes a result.
    void run
      .catch(
        (error: unknown): CheckResult => ({
          name: e.check.name,
          ok: false,
          ms: Math.max(0, this.deps.clock.now() - began),
          detail: clip(error instanceof Error ? error.message : String(error)),
          at: new Date(began).toISOString(),
        }),
      )
      .then((result) => {
        this.running -= 1;
        e.busy = false;
        if (!e.removed) {
          const previous = this.results.get(e.check.name);
          this.results.set(e.check.name, { ...result, name: e.check.name });
          if (!result.ok || previous?.ok === false) this.urgent();
          // At its interval from when this run began (not from when it ended).
          const elapsed = this.deps.clock.now() - began;
          this.schedule(e, Math.max(0, e.check.interval_s * 1000 - elapsed));
        }
        this.next();
      });
  }

  /** A slot is free: the check waiting longest runs. */
  private next(): void {
    const max = this.deps.runningMax ?? RUNNING_MAX;
    while (this.running < max) {
      const e = this.queue.shift();
      if (e === undefined) return;
      if (e.removed) continue;
      this.start(e);
    }
  }
}

function clip(text: string): string {
  return text.length <= CHECK_DETAIL_MAX ? text : `${text.slice(0, CHECK_DETAIL_MAX - 1)}…`;
}
