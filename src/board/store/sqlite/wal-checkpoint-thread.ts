import { parentPort, workerData } from 'node:worker_threads';
import Database from 'libsql';

/**
 * The history file's WAL checkpoints, on a thread of their own (wal-checkpointer.ts). A
 * checkpoint copies the WAL's pages into the database file and syncs it: done by the writing
 * connection at a commit (SQLite's automatic checkpoint), it held the board's event loop
 * 45–300 ms once per sweep or two at 15,000 machines (measured).
 */
const { path } = workerData as { path: string };
const db = new Database(path, { timeout: 0 });

parentPort?.on('message', (message: 'checkpoint' | 'close') => {
  if (message === 'close') {
    db.close();
    process.exit(0);
  }
  try {
    // PASSIVE: as many pages as no reader still needs, without waiting for any connection.
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort?.postMessage({ ok: true });
  } catch (error) {
    parentPort?.postMessage({
      ok: false,
      error: error instanceof Error ? error.message : String(error),
    });
  }
});
