import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WriteBatch } from '../../history/history-store.js';
import { toWire, type WireBatch } from './batch-wire.js';
import type { Committed } from './history-writer.js';

const THREAD_URL = new URL('./history-writer-thread.js', import.meta.url);

export type WriterRequest = { type: 'write'; id: number; batch: WireBatch } | { type: 'close' };
export type WriterAnswer =
  | { type: 'written'; id: number; committed: Committed }
  | { type: 'failed'; id: number; message: string; code: string | null }
  | { type: 'closed' };

/** Whether the thread's code is there (it is in the built board; not when run from source). */
export function writerThreadAvailable(): boolean {
  return existsSync(fileURLToPath(THREAD_URL));
}

/**
 * The history writer on a thread of its own (history-writer-thread.ts), started at the first
 * write: `write` posts the batch (as columns, see batch-wire.ts) and settles when the thread has
 * committed it, or failed. A thread that dies fails the writes under way with a clear error and
 * is started again at the next write (SQLite rolled back what it had not committed).
 */
export class WriterThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (c: Committed) => void; reject: (e: Error) => void }
  >();
  private closing = false;

  /** The thread is started at the first write. */
  constructor(private readonly path: string) {}

  /** Whether the thread is up. */
  get running(): boolean {
    return this.worker !== null;
  }

  async write(batch: WriteBatch): Promise<Committed> {
    if (this.closing) throw new Error('the history store is closed');
    const wire = await toWire(batch);
    const worker = this.worker ?? this.start();
    this.worker = worker;
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // A write under way keeps the process alive until it is committed; an idle thread not.
      worker.ref();
      worker.postMessage({ type: 'write', id, batch: wire } satisfies WriterRequest, [
        wire.numbers.buffer as ArrayBuffer,
      ]);
    });
  }

  /** Lets the thread finish its writes, checkpoint the WAL and close the file. */
  async close(): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies WriterRequest);
    const timer = setTimeout(() => void worker.terminate(), 10_000);
    await exited;
    clearTimeout(timer);
  }

  private start(): Worker {
    const worker = new Worker(THREAD_URL, {
      workerData: { path: this.path },
      // The thread holds one batch at a time (a sweep: ~15,000 samples, as columns) and the
      // machine ids; its garbage is one small row at a time. With a young generation of 16 MB,
      // a new space of 16.8 MB stayed committed between batches, used by nothing.
      resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 4 },
    });
    worker.on('message', (answer: WriterAnswer) => {
      // The thread exits by itself once closed (the timer of close() ends one that does not).
      if (answer.type === 'closed') return;
      const waiting = this.pending.get(answer.id);
      if (waiting === undefined) return;
      this.pending.delete(answer.id);
      if (this.pending.size === 0) worker.unref();
      if (answer.type === 'written') waiting.resolve(answer.committed);
      else
        waiting.reject(
          Object.assign(
            new Error(answer.message),
            answer.code === null ? {} : { code: answer.code },
          ),
        );
    });
    worker.on('error', (error) =>
      this.lost(worker, `the history writer thread failed: ${error.message}`),
    );
    worker.on('exit', (code) => this.lost(worker, `the history writer thread exited (${code})`));
    worker.unref();
    return worker;
  }

  private lost(worker: Worker, reason: string): void {
    if (this.worker === worker) this.worker = null;
    for (const { reject } of this.pending.values()) reject(new Error(reason));
    this.pending.clear();
  }
}
