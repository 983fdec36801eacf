import type { CheckResult } from '../../shared/checks/wire.js';
import { CertWatch } from './cert-watch.js';
import type { CheckSettings } from './check-config.js';
import { advance, type CheckState, decide, freshForMs, type RunnerRun } from './check-state.js';

export type { CheckState } from './check-state.js';

/** The runner name of the board's own runs, and of a push check's beats. */
export const BOARD_RUNNER = '@board';
export const PUSH_RUNNER = '@push';

/** One runner's last result of one check. */
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

/** A change of a check's state, or of its certificate: what the `check` event carries. */
export interface CheckChange {
  check: string;
  state: CheckState;
  previous: CheckState;
  at: number;
  /** The runners whose last result failed, and its detail (machine text: escape wherever shown). */
  runners: { machine: string; detail: string }[];
  /** Set when a runner saw a certificate not seen before (state and previous are then equal). */
  cert_changed?: string;
}

export interface CheckBookOptions {
  /** ms since the epoch. */
  now?: () => number;
  /** Whether `runner` runs `check` now (a machine's board labels still match; it is still known). */
  runs?: (runner: string, check: CheckSettings) => boolean;
  /** A subscriber threw (the report or sweep that brought the change goes on). */
  onError?: (error: unknown) => void;
}

interface Book {
  state: CheckState;
  since: number | null;
  runs: Map<string, RunnerRun>;
  certs: CertWatch;
}

/** Who runs a check when no predicate is given: the board, push, and any machine. */
function defaultRuns(runner: string, check: CheckSettings): boolean {
  if (runner === BOARD_RUNNER) return check.runners.board;
  if (runner === PUSH_RUNNER) return check.type === 'push';
  return check.runners.selector !== null;
}

/**
 * The checks' state on this board: every runner's results go in (`take`), state changes come
 * out to subscribers. One per board, configured again on reload; `sweep` (each tick) lets
 * results age out and runners that stopped running a check drop out.
 */
export class CheckBook {
  private checks = new Map<string, CheckSettings>();
  private readonly books = new Map<string, Book>();
  private readonly listeners: ((change: CheckChange) => void)[] = [];
  private readonly resultListeners: ((runner: string, result: CheckResult) => void)[] = [];
  private readonly removedListeners: ((check: string) => void)[] = [];
  private readonly configuredListeners: ((checks: readonly CheckSettings[]) => void)[] = [];
  private readonly now: () => number;
  private readonly onError: (error: unknown) => void;
  private runsCheck: (runner: string, check: CheckSettings) => boolean;

  constructor(options: CheckBookOptions = {}) {
    this.now = options.now ?? Date.now;
    this.runsCheck = options.runs ?? defaultRuns;
    this.onError = options.onError ?? (() => undefined);
  }

  /** Who runs what (the wiring knows the machines, which are built after the book). */
  setRunners(runs: (runner: string, check: CheckSettings) => boolean): void {
    this.runsCheck = runs;
  }

  configure(checks: readonly CheckSettings[]): void {
    const before = this.checks;
    this.checks = new Map(checks.map((c) => [c.name, c]));
    for (const name of before.keys())
      if (!this.checks.has(name)) for (const l of this.removedListeners) l(name);
    for (const l of this.configuredListeners) l(checks);
    for (const name of [...this.books.keys()]) if (!this.checks.has(name)) this.books.delete(name);
  }

  settings(): CheckSettings[] {
    return [...this.checks.values()];
  }

  /** A runner's results (a machine's overview, the board's own run, a push beat). */
  take(runner: string, results: readonly CheckResult[]): void {
    const now = this.now();
    for (const r of results) {
      const check = this.checks.get(r.name);
      if (check === undefined || !this.runsCheck(runner, check)) continue;
      const atMs = Date.parse(r.at);
      if (!Number.isFinite(atMs)) continue;
      const book = this.bookOf(r.name);
      const before = book.runs.get(runner);
      // Polls and reports repeat an overview: a result counts once.
      if (before !== undefined && atMs <= before.atMs) continue;
      book.runs.set(runner, advance(before, runner, r, atMs));
      for (const l of this.resultListeners) l(runner, r);
      const certChange = r.cert === undefined ? null : book.certs.see(r.cert);
      this.settle(check, book, now);
      if (certChange !== null) {
        this.emit({
          check: check.name,
          state: book.state,
          previous: book.state,
          at: now,
          runners: failingRunners(counting(check, book, now)),
          cert_changed: certChange,
        });
      }
    }
  }

  /** Results grown too old and runners that stopped running a check stop counting. */
  sweep(): void {
    const now = this.now();
    for (const [name, book] of this.books) {
      const check = this.checks.get(name);
      if (check === undefined) continue;
      for (const runner of [...book.runs.keys()])
        if (!this.runsCheck(runner, check)) book.runs.delete(runner);
      this.settle(check, book, now);
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
    return [...this.checks.values()].map((c) => {
      const book = this.books.get(c.name);
      const runners = [...(book?.runs.values() ?? [])]
        .filter((r) => this.runsCheck(r.machine, c))
        .map((r) => ({
          machine: r.machine,
          ok: r.ok,
          ms: r.ms,
          detail: r.detail,
          at: r.at,
        }));
      const state = book?.state ?? 'unknown';
      const since = state === 'unknown' || book?.since == null ? null : iso(book.since);
      return { name: c.name, type: c.type, state, since, runners };
    });
  }

  /** The soonest certificate expiry (ms since the epoch) the counting runners saw, or null. */
  soonestCertExpiry(name: string): number | null {
    const check = this.checks.get(name);
    const book = this.books.get(name);
    if (check === undefined || book === undefined) return null;
    let soonest: number | null = null;
    for (const r of counting(check, book, this.now())) {
      const t = r.certExpiresAt === null ? Number.NaN : Date.parse(r.certExpiresAt);
      if (Number.isFinite(t) && (soonest === null || t < soonest)) soonest = t;
    }
    return soonest;
  }

  private bookOf(name: string): Book {
    let book = this.books.get(name);
    if (book === undefined) {
      book = { state: 'unknown', since: null, runs: new Map(), certs: new CertWatch() };
      this.books.set(name, book);
    }
    return book;
  }

  /** Decides the check's state from its counting runners; a change goes to the subscribers. */
  private settle(check: CheckSettings, book: Book, now: number): void {
    const runs = counting(check, book, now);
    const state = decide(check, runs, book.state);
    if (state === book.state) return;
    const previous = book.state;
    book.state = state;
    book.since = state === 'unknown' ? null : now;
    this.emit({ check: check.name, state, previous, at: now, runners: failingRunners(runs) });
  }

  private emit(change: CheckChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}

/** The runners' results that count now: not older than 3 intervals and a minute. */
function counting(check: CheckSettings, book: Book, now: number): RunnerRun[] {
  const oldest = now - freshForMs(check);
  return [...book.runs.values()].filter((r) => r.atMs >= oldest);
}

function failingRunners(runs: readonly RunnerRun[]): { machine: string; detail: string }[] {
  return runs.filter((r) => !r.ok).map((r) => ({ machine: r.machine, detail: r.detail }));
}

const iso = (ms: number) => new Date(ms).toISOString();
