import { safeText } from '../../shared/wire/free-text.js';
import type { Cancel, Clock } from './clock.js';

/** What one read of a machine source (the GPU tool, the container engine, /proc, …) gave. */
export type SourceRead<T> =
  | { kind: 'absent' }
  | {
      kind: 'ok';
      value: T;
      /** More overview fields of the same read (e.g. how many were left out of the list). */
      also?: Record<string, unknown>;
    }
  | { kind: 'failed'; reason: string };

/** Reads one source once (in io/); injected so that tests need no tool, engine or /proc. */
export interface SourceReader<T> {
  /** Reads the source, giving up after `timeoutMs`. Never rejects. */
  read(timeoutMs: number): Promise<SourceRead<T>>;
  /** Ends a read in flight (at shutdown). */
  cancel(): void;
}

/** The longest `<field>_error` text. */
export const SOURCE_ERROR_MAX = 200;
/** A read may take this long at most (less when the interval is shorter). */
export const SOURCE_TIMEOUT_MS = 5000;
/** While a source is absent (no tool, no socket), it is looked for again this often. */
export const SOURCE_ABSENT_RECHECK_MS = 5 * 60 * 1000;

export interface SourceWatchOptions<T> {
  /** The overview field the value goes to; a failure goes to `<field>_error`. */
  field: string;
  reader: SourceReader<T>;
  clock: Clock;
  intervalMs: number;
  /** How often an absent source is looked for again (default SOURCE_ABSENT_RECHECK_MS). */
  absentRecheckMs?: number;
}

/**
 * A failure as `<field>_error` carries it: one line (control characters replaced, runs of space
 * folded), at most SOURCE_ERROR_MAX characters.
 */
export function sourceErrorText(reason: string): string {
  const line = safeText(reason.replace(/\s+/g, ' ').trim());
  const text = line === '' ? 'failed' : line;
  return text.length <= SOURCE_ERROR_MAX ? text : `${text.slice(0, SOURCE_ERROR_MAX - 1)}…`;
}

/**
 * Reads one source in the background, once per interval, and keeps the last answer for the
 * overview, which never waits for it. At most one read is in flight: reads start at least an
 * interval apart, and after a failure (a time-out, a crash) or a read that took more than half
 * an interval, a whole interval passes before the next. A failure replaces the value with
 * `<field>_error`: old numbers are not shown as current.
 */
export class SourceWatch<T> {
  private current: Record<string, unknown> = {};
  private timer: Cancel | null = null;
  private reading: Promise<void> | null = null;
  private stopped = true;
  private readonly timeoutMs: number;

  constructor(private readonly options: SourceWatchOptions<T>) {
    this.timeoutMs = Math.max(1, Math.min(SOURCE_TIMEOUT_MS, options.intervalMs));
  }

  /** Reads at once, then every interval. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops reading; a read in flight is ended and awaited. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.();
    this.timer = null;
    this.options.reader.cancel();
    await this.reading;
  }

  /** The last answer, as the overview carries it: `{field}`, `{field_error}` or nothing. */
  state(): Record<string, unknown> {
    return this.current;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = null;
      this.reading = this.readOnce().finally(() => {
        this.reading = null;
      });
    }, ms);
  }

  private async readOnce(): Promise<void> {
    const { clock, intervalMs, reader, field } = this.options;
    const started = clock.now();
    let answer: SourceRead<T>;
    try {
      answer = await reader.read(this.timeoutMs);
    } catch (error) {
      answer = { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
    }
    if (this.stopped) return;
    if (answer.kind === 'ok') this.current = { ...answer.also, [field]: answer.value };
    else if (answer.kind === 'failed')
      this.current = { [`${field}_error`]: sourceErrorText(answer.reason) };
    else this.current = {};
    const untilNext = started + intervalMs - clock.now();
    let next: number;
    if (answer.kind === 'absent')
      next = Math.max(intervalMs, this.options.absentRecheckMs ?? SOURCE_ABSENT_RECHECK_MS);
    // A failure, or a read slower than half an interval, is followed by a whole interval of
    // rest: a hung or slow tool is not run back to back.
    else if (answer.kind === 'failed' || untilNext < intervalMs / 2) next = intervalMs;
    else next = untilNext;
    this.schedule(next);
  }
}
