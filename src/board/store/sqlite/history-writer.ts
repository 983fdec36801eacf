import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'libsql';
import { SLICE_MS } from '../../../shared/slices.js';
import type { TierName, WriteBatch } from '../../history/history-store.js';
import { TIERS } from '../../history/history-store.js';
import { encodeSample, writerStatements } from './history-sql.js';

/** Rows written between two yields to the event loop (≈ 5 ms of work on the 2-core machine). */
export const CHUNK_ROWS = 250;
/** Rows a batch may prune per tier at least (more if it wrote more: pruning keeps pace). */
const PRUNE_MIN = 2000;
/** Machines a batch checks for having nothing left within retention (a full pass every few minutes). */
export const MACHINES_PER_BATCH = 100;
const REASON_MAX = 500;

/**
 * What one committed batch changed about the machines, for the readers' side to publish:
 * names removed and added (with their ids), first-seen times set, and the id of each state
 * change's machine (in the order of `batch.events`).
 */
export interface Committed {
  removed: [string, number][];
  added: [string, number][];
  firstSeen: [number, number][];
  eventIds: number[];
  /** The file holds no machine and no forgotten rows: an empty batch has nothing to do. */
  empty: boolean;
}

/**
 * A batch as the writer takes it: its rows one at a time (the thread's are made from the
 * columns as they are written, batch-wire.ts, so that a sweep of 15,000 is never 15,000 objects
 * held at once), the rest as in a WriteBatch.
 */
export type WriterBatch = Omit<WriteBatch, 'samples' | 'sweeps'> & {
  rows: Iterable<WriteBatch['samples'][number]>;
};

/** What a batch changed, while it is being written. */
interface Pending {
  added: Map<string, number>;
  removed: Map<string, number>;
  firstSeen: Map<number, number>;
}

/**
 * The writing half of the libsql history store: one connection, one transaction per batch.
 * It runs on the board's thread (yielding to its event loop between small chunks) or on a
 * thread of its own (history-writer-thread.ts, without yields). It keeps its own copy of the
 * committed machines (name → id, first seen), as the store's readers keep theirs.
 */
export class HistoryWriter {
  private readonly sql;
  private readonly ids = new Map<string, number>();
  private readonly firstSeen = new Map<number, number | null>();
  /** The last machine id the pruning pass checked. */
  private pruneCursor = 0;

  constructor(
    private readonly db: Database.Database,
    /** Whether to let the event loop turn every few ms (on the board's thread). */
    private readonly yields: boolean,
  ) {
    this.sql = writerStatements(db);
    const rows = db.prepare('SELECT id, name, first_seen FROM machines').raw(true).all();
    for (const [id, name, first] of rows as [number, string, number | null][]) {
      this.ids.set(name, Number(id));
      this.firstSeen.set(Number(id), first === null ? null : Number(first));
    }
  }

  /** Commits the batch (its events sorted by time) in one transaction. */
  async write(batch: WriterBatch): Promise<Committed> {
    const { sql } = this;
    const counts: Record<TierName, number> = { raw: 0, m5: 0, h1: 0 };
    const pending: Pending = { added: new Map(), removed: new Map(), firstSeen: new Map() };
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
      for (const { tier, name, sample } of batch.rows) {
        const id = this.idOf(name, pending, true);
        counts[tier] += 1;
        sql[tier].run(id, ...encodeSample(tier, sample));
        done += 1;
        // A turn of the event loop every few ms of work (rows cost more on a busy machine).
        if (
          this.yields &&
          ((done % 16 === 0 && performance.now() > sliceEnds) || done % CHUNK_ROWS === 0)
        ) {
          await yieldToLoop();
          sliceEnds = performance.now() + SLICE_MS;
        }
      }
      for (const e of batch.events) {
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
          await this.turn();
        }
      }
      sql.pruneEvents.run(PRUNE_MIN, batch.cutoffs.h1 * 1000);
      await this.dropForgotten();
      for (const [name, id] of this.pruneIdle(batch.cutoffs.h1 * 1000)) {
        pending.removed.set(name, id);
        pending.added.delete(name);
      }
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
    for (const [name, id] of pending.removed) {
      if (this.ids.get(name) === id) this.ids.delete(name);
      this.firstSeen.delete(id);
    }
    for (const [name, id] of pending.added) {
      this.ids.set(name, id);
      this.firstSeen.set(id, null);
    }
    for (const [id, first] of pending.firstSeen)
      if (this.firstSeen.has(id)) this.firstSeen.set(id, first);
    return {
      removed: [...pending.removed],
      added: [...pending.added],
      firstSeen: [...pending.firstSeen],
      eventIds,
      empty: this.ids.size === 0 && this.sql.forgottenIds.all().length === 0,
    };
  }

  private async turn(): Promise<void> {
    if (this.yields) await yieldToLoop();
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
          await this.turn();
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
      const idle = this.sql.idle.get(id, id, id, id, cutoffMs) as (number | null)[] | undefined;
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
}
