import type pg from 'pg';
import { TIERS, type TierName } from '../../history/history-store.js';
import * as SQL from './history-sql.js';

/** Rows a batch may prune per tier at least (more if it wrote more: pruning keeps pace). */
const PRUNE_MIN = 2000;
/** Rows of forgotten machines a batch deletes at most. */
const DROP_MAX = PRUNE_MIN * 2;
/** Forgotten machines a batch works on at most. */
const FORGOTTEN_PER_BATCH = 16;
/** Machines a batch checks for having nothing left within retention (as the libsql engine). */
export const MACHINES_PER_BATCH = 100;

/**
 * What a batch of history writes also removes, within bounds so that a batch stays short:
 * rows past each tier's retention, the rows of forgotten machines, and machines retention
 * emptied. Runs in the batch's transaction.
 */
export class HistoryRetention {
  /** The last machine id the pruning pass checked. */
  private pruneCursor = 0;
  /** Whether forgotten machines may still have rows to delete. */
  private forgottenLeft = true;

  /** Machines were forgotten: their rows are deleted over the next batches. */
  forgotten(): void {
    this.forgottenLeft = true;
  }

  /**
   * Prunes each tier before its cutoff (s; at least PRUNE_MIN rows, twice what the batch wrote
   * to it), deletes some forgotten rows, and forgets machines retention emptied: their names
   * and ids.
   */
  async run(
    client: pg.PoolClient,
    cutoffs: Record<TierName, number>,
    written: Record<TierName, number>,
  ): Promise<[string, number][]> {
    // Whole numbers for the bigint parameters (t < c for a whole t is t < ⌈c⌉).
    const prune: number[] = [];
    for (const tier of TIERS)
      prune.push(Math.ceil(cutoffs[tier]), Math.max(PRUNE_MIN, 2 * written[tier]));
    const cutoffMs = Math.ceil(cutoffs.h1 * 1000);
    await client.query(SQL.PRUNE, [...prune, cutoffMs, PRUNE_MIN]);
    if (this.forgottenLeft) await this.dropForgotten(client);
    const gone = await this.pruneIdle(client, cutoffMs);
    if (gone.length > 0) this.forgottenLeft = true;
    return gone;
  }

  /** Deletes the rows of forgotten machines, a bounded number per batch. */
  async dropForgotten(client: pg.PoolClient): Promise<void> {
    const { rows } = await client.query<{ id: number }>(SQL.FORGOTTEN_IDS, [
      FORGOTTEN_PER_BATCH + 1,
    ]);
    const ids = rows.slice(0, FORGOTTEN_PER_BATCH).map((r) => r.id);
    if (ids.length === 0) {
      this.forgottenLeft = false;
      return;
    }
    let budget = DROP_MAX;
    for (const table of SQL.MACHINE_TABLES) {
      const { rowCount } = await client.query(SQL.dropRowsSql(table), [ids, budget]);
      budget -= rowCount ?? 0;
      if (budget <= 0) break;
    }
    const unmarked = await client.query(SQL.UNMARK_FORGOTTEN, [ids]);
    // Cleared for good once every id is unmarked and no other was waiting.
    this.forgottenLeft = rows.length > ids.length || (unmarked.rowCount ?? 0) < ids.length;
  }

  /**
   * Checks the next few machines (in id order, round and round) and forgets those retention
   * emptied: no row in any tier and no state change since `cutoffMs`. Returns their names and ids.
   */
  async pruneIdle(client: pg.PoolClient, cutoffMs: number): Promise<[string, number][]> {
    const check = (after: number) =>
      client.query<{ id: number; name: string | null }>(SQL.PRUNE_IDLE, [
        after,
        MACHINES_PER_BATCH,
        cutoffMs,
      ]);
    let { rows } = await check(this.pruneCursor);
    if (rows.length === 0 && this.pruneCursor > 0) ({ rows } = await check(0));
    const gone: [string, number][] = [];
    for (const r of rows) {
      this.pruneCursor = r.id;
      if (r.name !== null) gone.push([r.name, r.id]);
    }
    return gone;
  }
}
