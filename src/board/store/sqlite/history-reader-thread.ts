import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'libsql';
import { foldedRows, type Row, readerStatements } from './history-sql.js';
import type { ReaderAnswer, ReaderRequest } from './reader-thread.js';

/**
 * The history file's reads, on a thread of their own (reader-thread.ts), one after the other
 * on a connection of their own: in WAL it sees the last committed batch, as the board's
 * reader connection does.
 */
if (parentPort === null) throw new Error('history-reader-thread must run as a worker thread');
const port = parentPort;
/**
 * The reads' niceness. On few cores a stream of reads keeps this thread busy: at the board's
 * priority it took the CPU the event loop needed (GET /api/board p99 doubled); niced, it gets
 * what the board's thread leaves, and reads wait rather than the live view.
 */
const NICE = 10;
lowerPriority();

const { path } = workerData as { path: string };
const db = new Database(path, { timeout: 0 });
const read = readerStatements(db);

port.on('message', (request: ReaderRequest) => {
  if (request.type === 'close') {
    db.close();
    process.exit(0);
  }
  try {
    const rows =
      request.type === 'samples'
        ? foldedRows(read, request.tier, request.m, request)
        : (read.events.all(request.m, request.limit) as Row[]);
    port.postMessage({ type: 'rows', id: request.id, rows } satisfies ReaderAnswer);
  } catch (error) {
    port.postMessage({
      type: 'failed',
      id: request.id,
      message: error instanceof Error ? error.message : String(error),
    } satisfies ReaderAnswer);
  }
});

/** On Linux the nice value is a thread's own: set on this thread's id, it is this thread's alone. */
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    // Never raised: a board started under `nice` keeps its own, lower priority.
    if (Number.isSafeInteger(tid) && tid > 0 && tid !== process.pid && getPriority(tid) < NICE)
      setPriority(tid, NICE);
  } catch {
    // Not Linux (no /proc/thread-self): the reads run at the board's priority.
  }
}
