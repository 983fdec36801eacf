import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HttpError } from '../../../shared/http/errors.js';
import type { TierName } from '../../history/history-store.js';
import type { Row } from './history-sql.js';

const THREAD_URL = new URL('./history-reader-thread.js', import.meta.url);

/** A read the thread answers: a machine's folded rows of a tier, or its latest state changes. */
export type Read =
  | {
      type: 'samples';
      m: number;
      tier: TierName;
      from: number;
      step: number;
      to: number;
      count: number;
    }
  | { type: 'events'; m: number; limit: number };
export type ReaderRequest = (Read & { id: number }) | { type: 'close' };
export type ReaderAnswer =
  | { type: 'rows'; id: number; rows: Row[] }
  | { type: 'failed'; id: number; message: string };

export interface ReaderThreadOptions {
  /** How long the thread stays after its last read (ms). */
  idleMs?: number;
  /** Reads under way or waiting at most; more are refused (503). */
  readsMax?: number;
}

/** A board at rest carries no reader thread (an isolate: ~10 MB); a minute of reads keeps one. */
export const READER_IDLE_MS = 60_000;
/** Each read is a few ms on the thread: 64 waiting is a flood, not a page of charts. */
export const READS_MAX = 64;
const RETRY_AFTER_S = 1;

/** Whether the thread's code is there (it is in the built board; not when run from source). */
export function readerThreadAvailable(): boolean {
  return existsSync(fileURLToPath(THREAD_URL));
}

/** A history read that cannot be answered now: 503 with Retry-After, never 500 nor a hang. */
export class HistoryReadUnavailable extends HttpError {
  constructor(why: string) {
    super(503, `History cannot be read now (${why}); try again later`, {
      'retry-after': String(RETRY_AFTER_S),
    });
    this.name = 'HistoryReadUnavailable';
  }
}

interface Waiting {
  worker: Worker;
  resolve: (rows: Row[]) => void;
  reject: (error: Error) => void;
}

/**
 * The history reads on a thread of their own (history-reader-thread.ts), with its own read
 * connection: a day of raw sweeps folded to 300 points held the board's event loop for
 * hundreds of ms. The thread starts at the first read and ends after `idleMs` without one. A
 * thread that dies fails the reads under way (503) and the next read starts a new one.
 */
export class ReaderThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Waiting>();
  private idle: NodeJS.Timeout | null = null;
  private closing = false;
  /** Threads ending (idle, or replaced): close() waits for them too, to leave the file alone. */
  private readonly ending = new Set<Promise<void>>();
  private readonly idleMs: number;
  private readonly readsMax: number;

  constructor(
    private readonly path: string,
    options: ReaderThreadOptions = {},
  ) {
    this.idleMs = options.idleMs ?? READER_IDLE_MS;
    this.readsMax = options.readsMax ?? READS_MAX;
  }

  /** Whether a thread is running now. */
  get running(): boolean {
    return this.worker !== null;
  }

  read(read: Read): Promise<Row[]> {
    if (this.closing)
      return Promise.reject(new HistoryReadUnavailable('the history store is closed'));
    if (this.pending.size >= this.readsMax)
      return Promise.reject(new HistoryReadUnavailable(`${this.readsMax} reads are waiting`));
    this.stopIdle();
    const worker = this.worker ?? this.start();
    this.worker = worker;
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject });
      // A read under way keeps the process alive until it is answered; an idle thread not.
      worker.ref();
      worker.postMessage({ ...read, id } satisfies ReaderRequest);
    });
  }

  /** Lets the thread answer the reads under way, then ends it. */
  async close(): Promise<void> {
    this.closing = true;
    this.stopIdle();
    const worker = this.worker;
    if (worker !== null) void this.end(worker);
    await Promise.all(this.ending);
  }

  private start(): Worker {
    const worker = new Worker(THREAD_URL, {
      workerData: { path: this.path },
      // A read holds at most a few thousand folded rows; the heap stays small.
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 2 },
    });
    worker.on('message', (answer: ReaderAnswer) => {
      const waiting = this.pending.get(answer.id);
      if (waiting === undefined) return;
      this.pending.delete(answer.id);
      if (answer.type === 'rows') waiting.resolve(answer.rows);
      else waiting.reject(new HistoryReadUnavailable(answer.message));
      if (this.pending.size === 0 && this.worker === worker) {
        worker.unref();
        this.startIdle(worker);
      }
    });
    worker.on('error', (error) => this.lost(worker, `the reader thread failed: ${error.message}`));
    worker.on('exit', (code) => this.lost(worker, `the reader thread exited (${code})`));
    return worker;
  }

  private startIdle(worker: Worker): void {
    this.idle = setTimeout(() => {
      this.idle = null;
      if (this.worker === worker && this.pending.size === 0) void this.end(worker);
    }, this.idleMs);
    this.idle.unref();
  }

  private stopIdle(): void {
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
  }

  /** Ends a thread after the reads it was sent (its messages are handled in order). */
  private async end(worker: Worker): Promise<void> {
    if (this.worker === worker) this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.ending.add(exited);
    worker.postMessage({ type: 'close' } satisfies ReaderRequest);
    const timer = setTimeout(() => void worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
    this.ending.delete(exited);
  }

  private lost(worker: Worker, reason: string): void {
    if (this.worker === worker) this.worker = null;
    for (const [id, waiting] of this.pending) {
      if (waiting.worker !== worker) continue;
      this.pending.delete(id);
      waiting.reject(new HistoryReadUnavailable(reason));
    }
  }
}
