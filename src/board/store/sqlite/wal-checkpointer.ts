import { Worker } from 'node:worker_threads';

const THREAD_URL = new URL('./wal-checkpoint-thread.js', import.meta.url);

/**
 * Checkpoints a WAL database from another thread, so that the connection that writes it can
 * turn SQLite's automatic checkpoint off (`wal_autocheckpoint = 0`): the writer's commits then
 * only append to the WAL. One checkpoint at a time; one asked for while another runs follows
 * it. Should the thread fail, `lost` is called once (the writer turns its own checkpoints back
 * on) and later requests do nothing.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private running = false;
  private again = false;
  private failed = false;

  constructor(
    path: string,
    private readonly lost: (reason: string) => void,
  ) {
    this.worker = new Worker(THREAD_URL, {
      workerData: { path },
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
    this.worker.on('message', (answer: { ok: boolean; error?: string }) => {
      this.running = false;
      // A reader on the old pages keeps a checkpoint from finishing: it is simply tried again
      // after the next commit. An error (other than busy) is not expected.
      if (!answer.ok && !/busy|locked/i.test(answer.error ?? '')) this.fail(answer.error ?? '');
      else if (this.again) this.request();
    });
    this.worker.on('error', (error) => this.fail(error.message));
    this.worker.on('exit', (code) => this.fail(`the checkpoint thread exited (${code})`));
    this.worker.unref();
  }

  /** Asks for a checkpoint (after a commit). */
  request(): void {
    if (this.failed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.again = false;
    this.worker.postMessage('checkpoint');
  }

  /** Stops the thread (the writer checkpoints what is left as it closes). */
  async close(): Promise<void> {
    if (this.failed) return;
    this.failed = true;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('close');
    const timer = setTimeout(() => void this.worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }

  private fail(reason: string): void {
    if (this.failed) return;
    this.failed = true;
    void this.worker.terminate();
    this.lost(reason);
  }
}
