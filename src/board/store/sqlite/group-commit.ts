import type Database from 'libsql';

interface Waiting {
  write: (db: Database.Database) => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for a synchronous SQLite connection: the writes asked for in one turn of the
 * event loop run in one transaction (one sync to disk for all of them), and each caller's
 * promise settles when that transaction has committed, or has failed and been rolled back.
 */
export class GroupCommit {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private settled: Promise<void> = Promise.resolve();
  private done: () => void = () => undefined;

  constructor(private readonly db: Database.Database) {}

  /** Runs `write` in the next group's transaction; resolves once it is committed. */
  run(write: (db: Database.Database) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ write, resolve, reject });
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
      this.db.exec('BEGIN IMMEDIATE');
      try {
        for (const w of group) w.write(this.db);
        this.db.exec('COMMIT');
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
      for (const w of group) w.resolve();
    } catch (error) {
      for (const w of group) w.reject(error);
    } finally {
      finished();
    }
  }
}
