import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'libsql';
import type {
  HistoryStore,
  Sample,
  StateEvent,
  TierName,
  UptimeTotals,
  WriteBatch,
} from '../../history/history-store.js';
import { batchSamples } from '../../history/history-store.js';
import {
  type ChangeSource,
  ledgerTotals,
  sortedByName,
  UptimeLedger,
} from '../../history/uptime-ledger.js';
import { migrate } from './history-schema.js';
import { decodeSample, foldedRows, type Row, readerStatements } from './history-sql.js';
import { type Committed, HistoryWriter } from './history-writer.js';
import { type Read, ReaderThread, type ReaderThreadOptions } from './reader-thread.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { WriterThread, writerThreadAvailable } from './writer-thread.js';

export { CHUNK_ROWS, MACHINES_PER_BATCH } from './history-writer.js';

const STATE = ['down', 'up'] as const;

/**
 * Opens (creating or migrating) DIR/data/history.db; throws with a clear message if it cannot.
 * `now` (ms) is the board's clock: the uptime figures are read from the file at once.
 */
export function openLibsqlHistory(
  path: string,
  now: () => number = Date.now,
  /** Whether batches are written, and history read, on threads of their own (built: yes). */
  thread = writerThreadAvailable(),
  /** The reader thread's idle time and bound on reads waiting (defaults: reader-thread.ts). */
  reads: ReaderThreadOptions = {},
): LibsqlHistoryStore {
  mkdirSync(dirname(path), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: 0 });
  } catch (error) {
    throw new Error(`cannot open ${path}: ${message(error)}`);
  }
  let reader: Database.Database | null = null;
  try {
    db.pragma('journal_mode = WAL');
    // WAL + NORMAL: a commit survives the process being killed (kill -9); only a power loss
    // may take back the last commits.
    db.pragma('synchronous = NORMAL');
    // A write lock taken and given back at once: a file another process holds locked is
    // reported now, at start, not at the first sweep.
    db.exec('BEGIN IMMEDIATE');
    db.exec('COMMIT');
    migrate(db);
    // Reads go through a second connection: in WAL it sees the last committed batch while the
    // writer's transaction is open (the writer yields between chunks, and a read in between on
    // the same connection would see rows that a crash then takes back).
    reader = new Database(path, { timeout: 0 });
    let writer: BatchWriter;
    if (thread) {
      // The thread opens a connection of its own, at the first write: this one only checked
      // and migrated, and leaves no WAL behind should no write ever come.
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      writer = new WriterThread(path);
    } else writer = localWriter(db, path);
    const store = new LibsqlHistoryStore(
      reader,
      writer,
      thread ? new ReaderThread(path, reads) : null,
    );
    store.uptime.prime(now());
    return store;
  } catch (error) {
    reader?.close();
    if (db.open) db.close();
    const text = message(error);
    if (/locked|busy/i.test(text))
      throw new Error(
        `${path} is locked by another process (another board on this data_dir?): ${text}`,
      );
    if (/not a database|malformed|corrupt/i.test(text))
      throw new Error(`${path} is corrupt: ${text} (move it away to start a new history)`);
    throw new Error(`cannot use ${path}: ${text}`);
  }
}

/** Where the store's batches are written: on the board's thread, or on one of their own. */
interface BatchWriter {
  write(batch: WriteBatch): Promise<Committed>;
  /** After the readers closed: leaves the file whole, checkpointed and out of WAL mode. */
  close(): Promise<void>;
}

/**
 * The writer on the board's thread (when the thread's code is not built: tests run from
 * source), yielding to the event loop between small chunks, with the WAL checkpointed by a
 * thread of its own (should it fail, the writer's own again).
 */
function localWriter(db: Database.Database, path: string): BatchWriter {
  const checkpointer = new WalCheckpointer(path, () => {
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  });
  db.pragma('wal_autocheckpoint = 0');
  const writer = new HistoryWriter(db, true);
  return {
    async write(batch) {
      const committed = await writer.write({ ...batch, rows: batchSamples(batch) });
      checkpointer.request();
      return committed;
    },
    async close() {
      await checkpointer.close();
      if (!db.open) return;
      try {
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.pragma('journal_mode = DELETE');
      } catch {
        // A connection libsql has not let go of yet keeps the WAL (empty after the checkpoint).
      }
      db.close();
    },
  };
}

/**
 * The HistoryStore in a SQLite file (WAL), through libsql. Everything a reader sees (the
 * rows, the names, first seen, uptime) is as of the last committed batch.
 */
export class LibsqlHistoryStore implements HistoryStore {
  /** Committed machines: name → id, and id → first seen (null: no state change yet). */
  private readonly ids = new Map<string, number>();
  private readonly firstSeen = new Map<number, number | null>();
  private readonly read;
  /** Running uptime totals, from the committed state changes. */
  readonly uptime: UptimeLedger;
  private writing: Promise<void> = Promise.resolve();
  /** The committed machines sorted by name (null: to sort again, the names changed). */
  private byName: [string, number][] | null = null;
  /** The file holds nothing (no machine, no forgotten rows): an empty batch is not written. */
  private empty = false;

  constructor(
    private readonly reader: Database.Database,
    private readonly writer: BatchWriter,
    /** Where samples and events are read (null: on this connection, on the board's thread). */
    private readonly readerThread: ReaderThread | null = null,
  ) {
    this.read = readerStatements(reader);
    this.uptime = new UptimeLedger(this.changeSource());
    this.loadMachines();
    this.empty = this.ids.size === 0 && (this.read.anyForgotten.get() as [number])[0] === 0;
  }

  write(batch: WriteBatch): Promise<void> {
    // Batches are committed one after the other, never interleaved on the one connection.
    const next = this.writing.then(() => this.writeNow(batch));
    this.writing = next.catch(() => undefined);
    return next;
  }

  async samples(
    name: string,
    tier: TierName,
    fromS: number,
    toS: number,
    stepS = 1,
  ): Promise<Sample[]> {
    const id = this.ids.get(name);
    if (id === undefined) return [];
    const from = Math.floor(fromS);
    const step = Math.max(1, Math.floor(stepS));
    const to = Math.ceil(toS);
    const count = Math.ceil((to - from) / step);
    if (count <= 0) return [];
    const rows = await this.rows({ type: 'samples', m: id, tier, from, step, to, count });
    return rows.map((r) => decodeSample(r, tier));
  }

  async events(name: string, limit: number): Promise<StateEvent[]> {
    const id = this.ids.get(name);
    if (id === undefined) return [];
    const rows = (await this.rows({ type: 'events', m: id, limit })) as unknown as [
      number,
      number,
      number | null,
      string | null,
    ][];
    return rows.map(([at, state, previous, reason]) => ({
      at: Number(at),
      state: STATE[state] ?? 'down',
      previous: previous === null ? null : (STATE[previous] ?? 'down'),
      reason,
    }));
  }

  async uptimeTotals(nowMs: number): Promise<UptimeTotals[]> {
    this.byName ??= sortedByName(this.ids);
    return ledgerTotals(this.uptime, this.byName, this.firstSeen, nowMs);
  }

  async has(name: string): Promise<boolean> {
    return this.ids.has(name);
  }

  /**
   * Leaves history.db whole, with no write-ahead log to replay: everything is checkpointed into
   * the file and the WAL emptied, then (when no other connection is left) the file is switched
   * out of WAL mode, which deletes the -wal and -shm files; the next start switches it back.
   * libsql's close() alone neither checkpoints nor deletes them (a 190 KB WAL was left).
   */
  async close(): Promise<void> {
    await this.writing;
    await this.readerThread?.close();
    if (this.reader.open) this.reader.close();
    await this.writer.close();
  }

  private async writeNow(batch: WriteBatch): Promise<void> {
    // An empty board's batches prune nothing: its writer (a thread) is not started for them.
    if (this.empty && carriesNothing(batch)) return;
    const events = [...batch.events].sort((a, b) => a.at - b.at);
    const committed = await this.writer.write({ ...batch, events });
    // Committed: readers see it all at once, from here (no await between the answer and this).
    const { removed, added, firstSeen, eventIds } = committed;
    this.empty = committed.empty;
    if (removed.length > 0 || added.length > 0) this.byName = null;
    for (const [name, id] of removed) {
      if (this.ids.get(name) === id) this.ids.delete(name);
      this.firstSeen.delete(id);
      this.uptime.drop(id);
    }
    for (const [name, id] of added) {
      this.ids.set(name, id);
      this.firstSeen.set(id, null);
    }
    for (const [id, first] of firstSeen) if (this.firstSeen.has(id)) this.firstSeen.set(id, first);
    events.forEach((e, i) => {
      const id = eventIds[i];
      if (id !== undefined && this.firstSeen.has(id)) this.uptime.apply(id, e.at, e.state === 'up');
    });
  }

  /** A read on the reader thread, or (without one) on this connection. */
  private rows(read: Read): Promise<Row[]> {
    if (this.readerThread !== null) return this.readerThread.read(read);
    if (read.type === 'samples')
      return Promise.resolve(foldedRows(this.read, read.tier, read.m, read));
    return Promise.resolve(this.read.events.all(read.m, read.limit) as Row[]);
  }

  private loadMachines(): void {
    this.ids.clear();
    this.firstSeen.clear();
    for (const [id, name, first] of this.read.machines.all() as [number, string, number | null][]) {
      this.ids.set(name, id);
      this.firstSeen.set(id, first);
    }
  }

  /** The committed state changes, as the uptime ledger reads them (known machines only). */
  private changeSource(): ChangeSource {
    const { read, firstSeen } = this;
    return {
      *between(from, to) {
        for (const [m, at, state] of read.changesBetween.iterate(from, to) as Iterable<Row>) {
          const id = Number(m);
          if (firstSeen.has(id)) yield [id, Number(at), state === 1] as const;
        }
      },
      *stateAt(at) {
        for (const [id, state] of read.stateAt.iterate(at) as Iterable<Row>)
          if (state !== null && state !== undefined) yield [Number(id), state === 1] as const;
      },
      of(id) {
        return (read.changesOf.all(id) as Row[]).map(
          ([at, state]) => [Number(at), state === 1] as const,
        );
      },
    };
  }
}

function carriesNothing(batch: WriteBatch): boolean {
  return (
    batch.samples.length === 0 &&
    (batch.sweeps ?? []).every((s) => s.names.length === 0) &&
    batch.events.length === 0 &&
    batch.forget.length === 0
  );
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
