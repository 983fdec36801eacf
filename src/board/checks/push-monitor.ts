import { createHash, timingSafeEqual } from 'node:crypto';
import { CHECK_DETAIL_MAX, type CheckResult } from '../../shared/checks/wire.js';
import type { Clock } from '../../shared/clock.js';
import { PUSH_RUNNER } from './check-book.js';
import type { CheckSettings } from './check-config.js';

/** Beats one push check takes a second; more are refused (a job in a loop gone wrong). */
export const BEATS_PER_SECOND = 10;

/** What a job's call to its push URL said. */
export interface Beat {
  status: 'up' | 'down';
  msg: string;
  ms: number | null;
}

export type BeatOutcome = 'taken' | 'unknown' | 'limited';

interface Watched {
  name: string;
  digest: Buffer;
  periodMs: number;
  graceMs: number;
  /** When a missing beat is next reported (ms since the epoch). */
  due: number;
  /** Beats within the current second, and that second. */
  second: number;
  beats: number;
}

/**
 * The push checks (heartbeats): a job calls its URL, each call a result of `@push`; no call
 * within period + grace is a failed result, and again each period while none comes. Tokens are
 * held only as SHA-256 digests, compared in constant time.
 */
export class PushMonitor {
  private watched: Watched[] = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly take: (runner: string, results: CheckResult[]) => void,
    private readonly clock: Clock,
    /** Whether this board reports the check's missing beats (of several boards, one does). */
    private readonly watches: (check: string) => boolean,
  ) {}

  /** The push checks of the config (at the start and at each reload); a kept check keeps its due time. */
  configure(checks: readonly CheckSettings[]): void {
    const now = this.clock.now();
    const before = new Map(this.watched.map((w) => [w.name, w]));
    this.watched = checks.flatMap((c) => {
      if (c.type !== 'push' || c.push === null) return [];
      const digest = digestOf(c.push.token);
      const { periodMs, graceMs } = c.push;
      const held = before.get(c.name);
      const kept = held?.digest.equals(digest) === true ? held : undefined;
      const same = kept !== undefined;
      const due = same && kept.periodMs === periodMs && kept.graceMs === graceMs;
      return [
        {
          name: c.name,
          digest,
          periodMs,
          graceMs,
          due: due ? kept.due : now + periodMs + graceMs,
          second: same ? kept.second : 0,
          beats: same ? kept.beats : 0,
        },
      ];
    });
    this.schedule();
  }

  /** A beat: the check whose token it is takes a result. */
  beat(token: string, beat: Beat): BeatOutcome {
    const digest = digestOf(token);
    let found: Watched | null = null;
    // Every digest is compared, whichever matches: the time taken tells nothing of the tokens.
    for (const w of this.watched)
      if (timingSafeEqual(w.digest, digest) && found === null) found = w;
    if (found === null) return 'unknown';
    const now = this.clock.now();
    const second = Math.floor(now / 1000);
    if (found.second !== second) {
      found.second = second;
      found.beats = 0;
    }
    found.beats += 1;
    if (found.beats > BEATS_PER_SECOND) return 'limited';
    found.due = now + found.periodMs + found.graceMs;
    const ok = beat.status === 'up';
    const result: CheckResult = {
      name: found.name,
      ok,
      ms: beat.ms ?? 0,
      detail: oneLine(beat.msg),
      at: new Date(now).toISOString(),
    };
    this.take(PUSH_RUNNER, [result]);
    this.schedule();
    return 'taken';
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Reports every missing beat that is due, then waits for the next due time. */
  private check = (): void => {
    this.timer = null;
    const now = this.clock.now();
    for (const w of this.watched) {
      if (now < w.due) continue;
      // Again each period while the job stays silent.
      w.due = now + w.periodMs;
      if (!this.watches(w.name)) continue;
      const detail = `no beat within ${duration(w.periodMs + w.graceMs)}`;
      const at = new Date(now).toISOString();
      this.take(PUSH_RUNNER, [{ name: w.name, ok: false, ms: 0, detail, at }]);
    }
    this.schedule();
  };

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.watched.length === 0) return;
    const next = Math.min(...this.watched.map((w) => w.due));
    // At most an hour: a longer wait is checked again then (setTimeout overflows past 24.8 days).
    const wait = Math.min(Math.max(0, next - this.clock.now()), 3_600_000);
    this.timer = setTimeout(this.check, wait);
    this.timer.unref();
  }
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** A job's message as a result's detail: one line, cut to fit. */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what goes
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > CHECK_DETAIL_MAX ? `${line.slice(0, CHECK_DETAIL_MAX - 1)}…` : line;
}

/** A period as the config writes it: 90s, 5m, 1h (or ms when it is not whole seconds). */
export function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
