import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { WalCheckpointer } from '../dist/board/store/sqlite/wal-checkpointer.js';
import { eventually } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

/** The history file's checkpoints in a thread (built code: dist/…/wal-checkpoint-thread.js). */
describe('WalCheckpointer', () => {
  const dir = tempDir('panoptes-wal-');
  afterAll(() => dir.cleanup());

  it('copies the WAL into the database file from its thread, when the writer does not', async () => {
    const path = join(dir.path, 'h.db');
    const db = new Database(path, { timeout: 0 });
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (v TEXT)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    db.exec('BEGIN');
    for (let i = 0; i < 2000; i += 1) insert.run('x'.repeat(1000));
    db.exec('COMMIT');
    // Committed to the WAL only: the database file holds none of the 2 MB yet.
    expect(statSync(path).size).toBeLessThan(100_000);
    const lost: string[] = [];
    const checkpointer = new WalCheckpointer(path, (reason) => lost.push(reason));
    try {
      checkpointer.request();
      await eventually(
        async () => statSync(path).size > 2_000_000 || undefined,
        'the WAL checkpointed into the file',
      );
      expect(lost).toEqual([]);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  it('says when its thread is lost, so the writer checkpoints again', async () => {
    const lost: string[] = [];
    const checkpointer = new WalCheckpointer(join(dir.path, 'missing', 'h.db'), (reason) =>
      lost.push(reason),
    );
    checkpointer.request();
    await eventually(async () => lost.length > 0 || undefined, 'the loss reported');
    expect(lost).toHaveLength(1);
    await checkpointer.close();
  });
});
