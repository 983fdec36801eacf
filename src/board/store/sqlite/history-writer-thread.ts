import { parentPort, workerData } from 'node:worker_threads';
import Database from 'libsql';
import { type WireBatch, wireBatch } from './batch-wire.js';
import { HistoryWriter } from './history-writer.js';
import type { WriterAnswer, WriterRequest } from './writer-thread.js';

/**
 * The history file's writer, on a thread of its own (writer-thread.ts). A sweep of 15,000
 * machines is 15,000 inserts and their folds; written on the board's thread, in slices, its
 * single statements and its COMMIT (when SQLite spills pages or checkpoints the WAL) still held
 * the event loop 30–300 ms at every sweep end. Here it takes as long as it takes,
 * and SQLite's automatic checkpoint runs here too, after the COMMIT that crosses its threshold.
 */
if (parentPort === null) throw new Error('history-writer-thread must run as a worker thread');
const port = parentPort;
const { path } = workerData as { path: string };
const db = new Database(path, { timeout: 0 });
db.pragma('synchronous = NORMAL');
const writer = new HistoryWriter(db, false);
/** Batches are written one after the other (the store sends one at a time anyway). */
let writing: Promise<void> = Promise.resolve();

port.on('message', (request: WriterRequest) => {
  if (request.type === 'close') writing = writing.then(close);
  else writing = writing.then(() => write(request.id, request.batch));
});

function close(): void {
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('journal_mode = DELETE');
  } catch {
    // Another connection still open keeps the WAL (empty after the checkpoint).
  }
  db.close();
  port.postMessage({ type: 'closed' } satisfies WriterAnswer);
  // Ends here, between native calls: a terminate() from outside can land inside one, and libsql
  // (neon) then aborts the whole process on the exception left pending.
  process.exit(0);
}

function write(id: number, batch: WireBatch): Promise<void> {
  return writer.write(wireBatch(batch)).then(
    (committed) => port.postMessage({ type: 'written', id, committed } satisfies WriterAnswer),
    (error: unknown) => {
      const e = error as { message?: unknown; code?: unknown };
      port.postMessage({
        type: 'failed',
        id,
        message: typeof e?.message === 'string' ? e.message : String(error),
        code: typeof e?.code === 'string' ? e.code : null,
      } satisfies WriterAnswer);
    },
  );
}
