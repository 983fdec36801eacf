import { mkdtempSync, rmSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';
import { WalSync } from './wal-sync.js';

const FULL = 2;
const NORMAL = 1;

interface Opened {
  db: Database.Database;
  wal: string;
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function openDb(): Opened {
  const dir = mkdtempSync(join(tmpdir(), 'panoptes-commit-'));
  dirs.push(dir);
  const file = join(dir, 'state.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (v TEXT)');
  return { db, wal: `${file}-wal` };
}

/** A WalSync whose fsyncs are counted, and held until released when `hold` is set. */
function countedSync(wal: string, hold = false) {
  const calls: Array<() => void> = [];
  let fail = false;
  const failures: unknown[] = [];
  const sync = new WalSync(
    wal,
    (error) => failures.push(error),
    async (file: FileHandle) => {
      if (fail) throw new Error('EIO');
      await file.sync();
      if (hold) await new Promise<void>((release) => calls.push(release));
      else calls.push(() => undefined);
    },
  );
  return {
    sync,
    calls,
    failures,
    failNext: () => {
      fail = true;
    },
  };
}

/** The connection's `synchronous` while the group's transaction runs. */
function level(db: Database.Database): number {
  return (db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous;
}

describe('GroupCommit', () => {
  it('commits a group of journal records with NORMAL and syncs the WAL behind it', async () => {
    const { db, wal } = openDb();
    const { sync, calls } = countedSync(wal, true);
    const commits = new GroupCommit(db, sync);
    const seen: number[] = [];
    await Promise.all([
      commits.run((d) => {
        seen.push(level(d));
        d.prepare('INSERT INTO t VALUES (?)').run('a');
      }, 'record'),
      commits.run((d) => {
        d.prepare('INSERT INTO t VALUES (?)').run('b');
      }, 'record'),
    ]);
    // Resolved while the fsync behind it is still held: the answer does not wait for it.
    expect(seen).toEqual([NORMAL]);
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(1);
    calls[0]?.();
    await sync.settled();
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toMatchObject({ n: 2 });
    await sync.close();
    db.close();
  });

  it('commits with FULL, and asks for no fsync, when any write of the group must be synced', async () => {
    const { db, wal } = openDb();
    const { sync, calls } = countedSync(wal);
    const commits = new GroupCommit(db, sync);
    const seen: number[] = [];
    await Promise.all([
      commits.run(() => undefined, 'record'),
      commits.run((d) => {
        seen.push(level(d));
        d.prepare('INSERT INTO t VALUES (?)').run('queued');
      }),
    ]);
    await commits.run((d) => {
      seen.push(level(d));
    }, 'record');
    await commits.run((d) => {
      seen.push(level(d));
    });
    await sync.settled();
    expect(seen).toEqual([FULL, NORMAL, FULL]);
    expect(calls).toHaveLength(1);
    await sync.close();
    db.close();
  });

  it('goes back to FULL for every group once an fsync failed, and without a WalSync', async () => {
    const { db, wal } = openDb();
    const { sync, failNext, failures } = countedSync(wal);
    const commits = new GroupCommit(db, sync);
    failNext();
    await commits.run(() => undefined, 'record');
    await sync.settled();
    expect(sync.failed).toBe(true);
    expect(failures).toHaveLength(1);
    const seen: number[] = [];
    await commits.run((d) => {
      seen.push(level(d));
    }, 'record');
    const plain = new GroupCommit(db);
    await plain.run((d) => {
      seen.push(level(d));
    }, 'record');
    expect(seen).toEqual([FULL, FULL]);
    await sync.close();
    db.close();
  });
});

describe('WalSync', () => {
  it('runs one more fsync for the requests made while one runs, and none after close', async () => {
    const { db, wal } = openDb();
    db.prepare('INSERT INTO t VALUES (?)').run('x');
    const { sync, calls } = countedSync(wal, true);
    sync.request();
    await new Promise((r) => setTimeout(r, 20));
    sync.request();
    sync.request();
    expect(calls).toHaveLength(1);
    calls[0]?.();
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(2);
    calls[1]?.();
    await sync.settled();
    expect(calls).toHaveLength(2);
    await sync.close();
    sync.request();
    await sync.settled();
    expect(calls).toHaveLength(2);
    expect(sync.failed).toBe(false);
    db.close();
  });
});
