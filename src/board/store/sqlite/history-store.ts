import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import Database from 'libsql';
import { SLICE_MS } from '../../../shared/slices.js';
import {
  type ChangeSource,
  ledgerTotals,
  sortedByName,
  UptimeLedger,
} from '../../history/uptime-ledger.js';
import type {
  HistoryStore,
  Sample,
  StateEvent,
  TierName,
  UptimeTotals,
  WriteBatch,
} from '../history-store.js';
import { TIERS } from '../history-store.js';
import { migrate } from './history-schema.js';
import {
  BUCKETS_MAX,
  decodeSample,
  encodeSample,
  type Row,
  readerStatements,
  writerStatements,
} from './history-sql.js';
import { WalCheckpointer } from './wal-checkpointer.js';

/** Rows written between two yields to the event loop (≈ 5 ms of work on the 2-core machine). */
export const CHUNK_ROWS = 250;
/** Rows a batch may prune per tier at least (more if it wrote more: pruning keeps pace). */
const PRUNE_MIN = 2000;
/** Machines a batch checks for having nothing left within retention (a full pass every few minutes). */
export const MACHINES_PER_BATCH = 100;
const REASON_MAX = 500;
const STATE = ['down', 'up'] as const;

/**
 * Opens (creating or migrating) DIR/data/history.db; throws with a clear message if it cannot.
 * `now` (ms) is the board's clock: the uptime figures are read from the file at once.
 */
export function openLibsqlHistory(path: string, now: () => number = Date.now): LibsqlHistoryStore {
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
    // Checkpoints on a thread of their own; should it fail, the writer's own again.
    const writer = db;
    const checkpointer = new WalCheckpointer(path, () => {
      if (writer.open) writer.pragma('wal_autocheckpoint = 1000');
    });
    db.pragma('wal_autocheckpoint = 0');
    const store = new LibsqlHistoryStore(db, reader, checkpointer);
    store.uptime.prime(now());
    return store;
  } catch (error) {
    reader?.close();
    db.close();
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

/** What a batch changed about the machines, published to readers once it is committed. */
interface Pending {
  added: Map<string, number>;
  removed: Map<string, number>;
  firstSeen: Map<number, number>;
}

/**
 * The HistoryStore in a SQLite file (WAL), through libsql. Everything a reader sees (the
 * rows, the names, first seen, uptime) is as of the last committed batch.
 */
export class LibsqlHistoryStore implements HistoryStore {
  /** Committed machines: name → id, and id → first seen (null: no state change yet). */
  private readonly ids = new Map<string, number>();
  private readonly firstSeen = new Map<number, number | null>();
  private readonly sql;
  private readonly read;
  /** Running uptime totals, from the committed state changes. */
  readonly uptime: UptimeLedger;
  private writing: Promise<void> = Promise.resolve();
  /** The committed machines sorted by name (null: to sort again, the names changed). */
  private byName: [string, number][] | null = null;
  /** The last machine id the pruning pass checked. */
  private pruneCursor = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly reader: Database.Database,
    private readonly checkpointer: WalCheckpointer | null = null,
  ) {
    this.sql = writerStatements(db);
    this.read = readerStatements(reader);
    this.uptime = new UptimeLedger(this.changeSource());
    this.loadMachines();
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
    const folded = this.read.folded[tier];
    const rows =
      count <= BUCKETS_MAX
        ? folded.byBucket.all(from, step, id, from, step, from, step, to, count)
        : folded.grouped.all(from, from, step, step, id, from, to);
    return (rows as Row[]).map((r) => decodeSample(r, tier));
  }

  async events(name: string, limit: number): Promise<StateEvent[]> {
    const id = this.ids.get(name);
    if (id === undefined) return [];
    const rows = this.read.events.all(id, limit) as [
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
    await this.checkpointer?.close();
    if (this.reader.open) this.reader.close();
    if (!this.db.open) return;
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
      this.db.pragma('journal_mode = DELETE');
    } catch {
      // A connection libsql has not let go of yet keeps the WAL (empty after the checkpoint).
    }
    this.db.close();
  }

  private async writeNow(batch: WriteBatch): Promise<void> {
    const { sql } = this;
    const counts: Record<TierName, number> = { raw: 0, m5: 0, h1: 0 };
    const pending: Pending = { added: new Map(), removed: new Map(), firstSeen: new Map() };
    const events = [...batch.events].sort((a, b) => a.at - b.at);
    const eventIds: number[] = [];
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const name of batch.forget) {
        const id = this.idOf(name, pending, false);
        if (id === undefined) continue;
        sql.forgetMachine.run(id);
        sql.markForgotten.run(id);
        pending.added.delete(name);
        pending.removed.set(name, id);
      }
      let done = 0;
      let sliceEnds = performance.now() + SLICE_MS;
      for (const { tier, name, sample } of batch.samples) {
        const id = this.idOf(name, pending, true);
        counts[tier] += 1;
        sql[tier].run(id, ...encodeSample(tier, sample));
        done += 1;
        // A turn of the event loop every few ms of work (rows cost more on a busy machine).
        if ((done % 16 === 0 && performance.now() > sliceEnds) || done % CHUNK_ROWS === 0) {
          await yieldToLoop();
          sliceEnds = performance.now() + SLICE_MS;
        }
      }
      for (const e of events) {
        const id = this.idOf(e.name, pending, true);
        eventIds.push(id);
        sql.event.run(
          id,
          e.at,
          e.state === 'up' ? 1 : 0,
          e.previous === null ? null : e.previous === 'up' ? 1 : 0,
          e.reason?.slice(0, REASON_MAX) ?? null,
        );
        const first = pending.firstSeen.get(id) ?? this.firstSeen.get(id) ?? null;
        if (first === null || e.at < first) {
          sql.firstSeen.run(e.at, id);
          pending.firstSeen.set(id, e.at);
        }
      }
      for (const tier of TIERS) {
        let budget = Math.max(PRUNE_MIN, 2 * counts[tier]);
        while (budget > 0) {
          const take = Math.min(CHUNK_ROWS, budget);
          budget -= take;
          if (sql.prune[tier].run(take, batch.cutoffs[tier]).changes < take) break;
          await yieldToLoop();
        }
      }
      sql.pruneEvents.run(PRUNE_MIN, batch.cutoffs.h1 * 1000);
      await this.dropForgotten();
      for (const [name, id] of this.pruneIdle(batch.cutoffs.h1 * 1000)) {
        pending.removed.set(name, id);
        pending.added.delete(name);
      }
      this.db.exec('COMMIT');
      this.checkpointer?.request();
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
    // Committed: readers see it all at once, from here (no await between COMMIT and this).
    if (pending.removed.size > 0 || pending.added.size > 0) this.byName = null;
    for (const [name, id] of pending.removed) {
      if (this.ids.get(name) === id) this.ids.delete(name);
      this.firstSeen.delete(id);
      this.uptime.drop(id);
    }
    for (const [name, id] of pending.added) {
      this.ids.set(name, id);
      this.firstSeen.set(id, null);
    }
    for (const [id, first] of pending.firstSeen)
      if (this.firstSeen.has(id)) this.firstSeen.set(id, first);
    events.forEach((e, i) => {
      const id = eventIds[i];
      if (id !== undefined && this.firstSeen.has(id)) this.uptime.apply(id, e.at, e.state === 'up');
    });
  }

  /** Deletes the rows of forgotten machines, a bounded number per batch. */
  private async dropForgotten(): Promise<void> {
    let budget = PRUNE_MIN * 2;
    for (const id of this.sql.forgottenIds.all() as number[]) {
      let left = false;
      for (const drop of this.sql.drop) {
        while (budget > 0) {
          const take = Math.min(CHUNK_ROWS, budget);
          budget -= take;
          const gone = drop.run(id, take).changes;
          await yieldToLoop();
          if (gone < take) break;
          left = true;
        }
        if (budget <= 0) return;
      }
      if (!left) this.sql.unmarkForgotten.run(id);
    }
  }

  /**
   * Checks the next few machines (in id order, round and round) and removes those retention
   * emptied: no row in any tier and no state change since `cutoffMs`. Their last change (kept
   * by event pruning as the state in force) goes with them. Returns their names and ids.
   */
  private pruneIdle(cutoffMs: number): [string, number][] {
    let rows = this.sql.machinesAfter.all(this.pruneCursor, MACHINES_PER_BATCH) as [
      number,
      string,
    ][];
    if (rows.length === 0 && this.pruneCursor > 0) {
      this.pruneCursor = 0;
      rows = this.sql.machinesAfter.all(0, MACHINES_PER_BATCH) as [number, string][];
    }
    const gone: [string, number][] = [];
    for (const [id, name] of rows) {
      this.pruneCursor = id;
      const idle = this.sql.idle.get(id, id, id, id, cutoffMs) as Row | undefined;
      if (idle?.[0] !== 1) continue;
      // Only changes older than the cutoff are left: few (event pruning keeps one per machine).
      if (this.sql.dropEvents.run(id, CHUNK_ROWS).changes >= CHUNK_ROWS) continue;
      this.sql.forgetMachine.run(id);
      gone.push([name, id]);
    }
    return gone;
  }

  /** The id of a name as this batch sees it (a new one if `create`). */
  private idOf(name: string, pending: Pending, create: true): number;
  private idOf(name: string, pending: Pending, create: false): number | undefined;
  private idOf(name: string, pending: Pending, create: boolean): number | undefined {
    let id =
      pending.added.get(name) ?? (pending.removed.has(name) ? undefined : this.ids.get(name));
    if (id === undefined && create) {
      id = Number(this.sql.addMachine.run(name).lastInsertRowid);
      pending.added.set(name, id);
    }
    return id;
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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
