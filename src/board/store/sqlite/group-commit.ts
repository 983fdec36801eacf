import type Database from 'libsql';
import type { WalSync } from './wal-sync.js';

/**
 * How a write must be on disk when its promise resolves. `sync`: synced (`synchronous =
 * FULL`), so it survives a power cut. `record`: in the WAL file (`synchronous = NORMAL`), so it
 * survives `kill -9` of the board at once and a power cut once the WalSync behind it has run
 * (journal entries: the relay's answer does not wait for an fsync, docs/internals/decisions.md).
 */
export type Durability = 'sync' | 'record';

interface Waiting {
  write: (db: Database.Database) => void;
  durability: Durability;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for a synchronous SQLite connection: the writes asked for in one turn of the
 * event loop run in one transaction (one sync to disk for all of them), and each caller's
 * promise settles when that transaction has committed, or has failed and been rolled back.
 * A group of `record` writes only commits with `synchronous = NORMAL` and has `walSync` sync
 * the WAL behind it; a group with any `sync` write in it commits with `FULL`. Without a
 * WalSync (or once it failed) every group commits with `FULL`.
 */
export class GroupCommit {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private settled: Promise<void> = Promise.resolve();
  private done: () => void = () => undefined;
  /** The connection's `synchronous` setting: FULL, as the store opens it. */
  private full = true;

  constructor(
    private readonly db: Database.Database,
    private readonly walSync: WalSync | null = null,
  ) {}

  /** Runs `write` in the next group's transaction; resolves once it is committed. */
  run(write: (db: Database.Database) => void, durability: Durability = 'sync'): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ write, durability, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      this.settled = new Promise<void>((r) => {
        this.done = r;
      });
      setImmediate(() => this.commit());
    });
  }

  /** Resolves when no write waits. */
  idle(): Promise<void> {
    return this.settled;
  }

  private commit(): void {
    const group = this.waiting;
    this.waiting = [];
    this.scheduled = false;
    const finished = this.done;
    try {
      if (!this.db.open) throw new Error('the store is closed');
      const relaxed =
        this.walSync !== null &&
        !this.walSync.failed &&
        group.every((w) => w.durability === 'record');
      if (this.full === relaxed) {
        this.db.pragma(relaxed ? 'synchronous = NORMAL' : 'synchronous = FULL');
        this.full = !relaxed;
      }
      this.db.exec('BEGIN IMMEDIATE');
      try {
        for (const w of group) w.write(this.db);
        this.db.exec('COMMIT');
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
      if (relaxed) this.walSync?.request();
      for (const w of group) w.resolve();
    } catch (error) {
      for (const w of group) w.reject(error);
    } finally {
      finished();
    }
  }
}
