import { type FileHandle, open } from 'node:fs/promises';

/**
 * Syncs a WAL file to disk behind the commits that did not wait for it (GroupCommit's
 * `record` writes, committed with `synchronous = NORMAL`): their frames are in the file,
 * written before the commit returned, so they already survive `kill -9`; this makes them
 * survive a power cut too, one fsync later, on libuv's thread pool rather than on the board's
 * event loop or in a request's answer. One fsync at a time; asked for while one runs, another
 * follows it (it covers every frame written before it started).
 *
 * Should an fsync fail, `failed` turns true and stays so, and `onFailure` is told (the board's
 * StoreHealth: logged, counted, the store probed): the caller then commits everything with
 * `synchronous = FULL` again, so SQLite syncs on its own and says so if it cannot.
 */
export class WalSync {
  private file: FileHandle | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private broken = false;
  private closed = false;

  constructor(
    private readonly walPath: string,
    private readonly onFailure: (error: unknown) => void = () => undefined,
    private readonly fsync: (file: FileHandle) => Promise<void> = (file) => file.sync(),
  ) {}

  /** Whether an fsync failed: the caller must not rely on this any more. */
  get failed(): boolean {
    return this.broken;
  }

  /** Asks for an fsync of everything written to the WAL so far. */
  request(): void {
    if (this.broken || this.closed) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  /** Resolves when no fsync runs or waits (the one asked for last has finished). */
  async settled(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  /** Waits for what was asked for, then lets the file go (before the WAL is removed). */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    await this.file?.close().catch(() => undefined);
    this.file = null;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        // The WAL exists: the commit that asked for this wrote to it. The same file (inode) is
        // reused from its start after a checkpoint, so one handle serves as long as the store.
        this.file ??= await open(this.walPath, 'r');
        await this.fsync(this.file);
      } catch (error) {
        this.broken = true;
        this.onFailure(error);
        return;
      }
    } while (this.again);
  }
}
