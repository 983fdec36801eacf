import { join } from 'node:path';
import type { BenchOptions } from '../options.js';
import { type Program, rssMb, startBoard } from '../processes.js';
import type { Row } from '../table.js';

/** What every scenario shares: the options, a scratch directory, and where results go. */
export interface BenchContext {
  options: BenchOptions;
  tmp: string;
  rows: Row[];
  /** What --check found wrong (besides missing figures). */
  problems: string[];
  /** RSS of a board with no machines at rest, MB: the baseline of the memory rows. */
  emptyBoardRssMb: number;
  /** The empty board and a bare node:http server at rest (at-rest.ts). */
  emptyBoard: AtRest;
  log(message: string): void;
}

/** What the empty board and a bare node:http server hold at rest, MB, measured together. */
export interface AtRest {
  boardMb: number;
  bareMb: number;
  /** How it was measured, for the rows' text. */
  method: string;
}

/**
 * Starts a board with the bench's node options (--cpu-prof when asked). Each board profiles
 * into a directory of its own, `DIR/board-LABEL/`, under Node's own file names
 * (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile): thread 0 is the board's main thread,
 * the others its poller and history writer threads. One fixed --cpu-prof-name would have every
 * thread write the same file, and the last to exit win.
 */
export function launchBoard(ctx: BenchContext, configDir: string, label: string): Promise<Program> {
  const nodeArgs = [
    ...ctx.options.boardNodeArgs,
    ...(ctx.options.cpuProfDir === null
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${join(ctx.options.cpuProfDir, `board-${label}`)}`]),
  ];
  return startBoard(configDir, nodeArgs, ctx.options.boardScript ?? undefined);
}

/**
 * Samples a process's RSS every `everyMs` and keeps the peak, until stopped; with `phase`, the
 * peak of each named stretch too (what load the peak came under).
 */
export class RssSampler {
  peakMb = 0;
  /** The phase the peak came in, or `after NAME` between phases (null: before any). */
  peakPhase: string | null = null;
  readonly samples: { atMs: number; mb: number }[] = [];
  /** The peak of each phase, in the order the phases began. */
  readonly phases = new Map<string, number>();
  /** Every sample of each phase, MB (for a median at rest). */
  readonly phaseSamples = new Map<string, number[]>();
  private current: string | null = null;
  /** The last phase named, for samples between phases. */
  private last: string | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly started = Date.now();

  constructor(
    private readonly pid: number,
    everyMs: number,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.sample();
  }

  /** From now on the samples count for `name` (null: for no phase). */
  phase(name: string | null): void {
    this.sample();
    this.current = name;
    if (name !== null) {
      this.last = name;
      this.sample();
    }
  }

  sample(): number {
    try {
      const mb = rssMb(this.pid);
      if (mb > this.peakMb) {
        this.peakMb = mb;
        this.peakPhase = this.current ?? (this.last === null ? null : `after ${this.last}`);
      }
      this.samples.push({ atMs: Date.now() - this.started, mb });
      if (this.current !== null) {
        this.phases.set(this.current, Math.max(this.phases.get(this.current) ?? 0, mb));
        const list = this.phaseSamples.get(this.current) ?? [];
        list.push(mb);
        this.phaseSamples.set(this.current, list);
      }
      return mb;
    } catch {
      return Number.NaN;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** `work` run while the RSS of process `pid` is sampled every 250 ms: its result, and the peak. */
export async function withPeakRss<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; peakMb: number }> {
  const sampler = new RssSampler(pid, 250);
  try {
    const result = await work();
    sampler.sample();
    return { result, peakMb: sampler.peakMb };
  } finally {
    sampler.stop();
  }
}

/** A directory for one scenario's board config and data. */
export function scenarioDir(ctx: BenchContext, name: string): string {
  return join(ctx.tmp, name);
}

/** Formats a count with thousands separators. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}
