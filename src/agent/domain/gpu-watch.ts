import type { GpuView } from '../../shared/wire/overview.js';
import type { Cancel, Clock } from './clock.js';
import { gpuErrorText } from './gpus.js';

/** What one read of the GPU tool gave. */
export type GpuRead =
  | { kind: 'absent' }
  | { kind: 'ok'; gpus: GpuView[] }
  | { kind: 'failed'; reason: string };

/** Runs the machine's GPU tool once (io/gpu-probe.ts); injected so that tests need no tool. */
export interface GpuReader {
  /** Finds the tool and reads it, giving up after `timeoutMs`. Never rejects. */
  read(timeoutMs: number): Promise<GpuRead>;
  /** Ends a read in flight (at shutdown). */
  cancel(): void;
}

/** The GPU fields of the overview: `gpus`, or `gpus_error`, or neither (no tool). */
export interface GpuState {
  gpus?: GpuView[];
  gpus_error?: string;
}

/** A read may take this long at most (less when the interval is shorter). */
export const GPU_TIMEOUT_MS = 5000;
/** While no tool is found, the PATH is searched again this often (drivers installed later). */
export const GPU_ABSENT_RECHECK_MS = 5 * 60 * 1000;

/**
 * Reads the GPUs in the background, once per interval, and keeps the last answer for the
 * overview, which never waits for the tool. At most one read is in flight: reads start at
 * least an interval apart, and after a failure (a time-out, a crash) or a read that took more
 * than half an interval, a whole interval passes before the next. A failure replaces the GPUs with `gpus_error`: old numbers are not shown as
 * current.
 */
export class GpuWatch {
  private current: GpuState = {};
  private timer: Cancel | null = null;
  private reading: Promise<void> | null = null;
  private stopped = true;
  private readonly timeoutMs: number;

  constructor(private readonly deps: { reader: GpuReader; clock: Clock; intervalMs: number }) {
    this.timeoutMs = Math.max(1, Math.min(GPU_TIMEOUT_MS, deps.intervalMs));
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
    this.deps.reader.cancel();
    await this.reading;
  }

  /** The last answer, as the overview carries it. */
  state(): GpuState {
    return this.current;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      this.reading = this.readOnce().finally(() => {
        this.reading = null;
      });
    }, ms);
  }

  private async readOnce(): Promise<void> {
    const { clock, intervalMs, reader } = this.deps;
    const started = clock.now();
    let answer: GpuRead;
    try {
      answer = await reader.read(this.timeoutMs);
    } catch (error) {
      answer = { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
    }
    if (this.stopped) return;
    if (answer.kind === 'ok') this.current = { gpus: answer.gpus };
    else if (answer.kind === 'failed') this.current = { gpus_error: gpuErrorText(answer.reason) };
    else this.current = {};
    const untilNext = started + intervalMs - clock.now();
    let next: number;
    if (answer.kind === 'absent') next = Math.max(intervalMs, GPU_ABSENT_RECHECK_MS);
    // A failure, or a read slower than half an interval, is followed by a whole interval of
    // rest: a hung or slow tool is not run back to back.
    else if (answer.kind === 'failed' || untilNext < intervalMs / 2) next = intervalMs;
    else next = untilNext;
    this.schedule(next);
  }
}
