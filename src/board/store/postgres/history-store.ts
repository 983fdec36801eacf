import type pg from 'pg';
import type {
  HistoryStore,
  Sample,
  StateEvent,
  TierName,
  UptimeTotals,
  WriteBatch,
} from '../../history/history-store.js';
import { UPTIME_WINDOWS } from '../../history/uptime.js';
import { ledgerTotals, sortedByName, UptimeLedger } from '../../history/uptime-ledger.js';
import { HistoryRetention } from './history-retention.js';
import * as Rows from './history-rows.js';
import { HISTORY_MIGRATIONS } from './history-schema.js';
import * as SQL from './history-sql.js';
import { migrate } from './migrate.js';

/** The uptime windows' lengths (ms), and the longest: what a rebuild of the ledger reads. */
const WINDOW_MS = Object.values(UPTIME_WINDOWS);
const LONGEST = Math.max(...WINDOW_MS);
/** Reads of the ledger's changes that may race a commit before one is made in the write queue. */
const OPTIMISTIC_READS = 3;

/**
 * Opens the history in PostgreSQL (migrating it under the advisory lock) and reads the uptime
 * figures at once. The pool is the caller's: the store never ends it.
 */
export async function openPostgresHistory(
  pool: pg.Pool,
  now: () => number = Date.now,
): Promise<PostgresHistoryStore> {
  await migrate(pool, 'history', HISTORY_MIGRATIONS);
  const store = new PostgresHistoryStore(pool);
  await store.load();
  await store.uptimeTotals(now());
  return store;
}

/**
 * The HistoryStore in PostgreSQL. Rows are read straight from the database (other connections
 * see only committed batches); the names, first seen and uptime figures are held here and, as in
 * the libsql engine, published only once a batch is committed.
 */
export class PostgresHistoryStore implements HistoryStore {
  /** Committed machines: name → id, and id → first seen (null: no state change yet). */
  private readonly ids = new Map<string, number>();
  private readonly firstSeen = new Map<number, number | null>();
  private readonly changes: SQL.PrefetchedChanges;
  /** Running uptime totals, from the committed state changes. */
  readonly uptime: UptimeLedger;
  /** The `now` of the ledger's last read (it reads changes from there on); null: never read. */
  private ledgerAt: number | null = null;
  private rebuildLedger = true;
  private rebuilds = 0;
  /** Bumped when a COMMIT is sent and when its batch is published; odd while one is under way. */
  private commits = 0;
  private writing: Promise<void> = Promise.resolve();
  private uptimeReading: Promise<unknown> = Promise.resolve();
  private readonly reads = new Set<Promise<unknown>>();
  private closed = false;
  /** The committed machines sorted by name (null: to sort again, the names changed). */
  private byName: [string, number][] | null = null;
  private readonly retention = new HistoryRetention();
  /** A COMMIT failed: the machines are read again before the next batch. */
  private uncertain = false;

  constructor(private readonly pool: pg.Pool) {
    this.changes = new SQL.PrefetchedChanges((id) => this.firstSeen.has(id));
    this.uptime = new UptimeLedger(this.changes);
  }

  /** Reads the committed machines (at open). */
  async load(): Promise<void> {
    const { rows } = await this.pool.query<SQL.MachineRow>(SQL.MACHINES);
    this.ids.clear();
    this.firstSeen.clear();
    for (const r of rows) {
      this.ids.set(r.name, r.id);
      this.firstSeen.set(r.id, r.first_seen === null ? null : Number(r.first_seen));
    }
    this.byName = null;
  }

  write(batch: WriteBatch): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the history store is closed'));
    // Batches are committed one after the other, never interleaved.
    const next = this.writing.then(() => this.writeNow(batch));
    this.writing = next.catch(() => undefined);
    return next;
  }

  samples(name: string, tier: TierName, fromS: number, toS: number, stepS = 1): Promise<Sample[]> {
    return this.track(async () => {
      const id = this.ids.get(name);
      const from = Math.floor(fromS);
      const step = Math.max(1, Math.floor(stepS));
      const to = Math.ceil(toS);
      if (id === undefined || to <= from) return [];
      const { rows } = await this.pool.query<Rows.FoldedRow>(SQL.FOLD[tier], [id, from, step, to]);
      return rows.map((r) => Rows.decodeSample(r, tier));
    });
  }

  events(name: string, limit: number): Promise<StateEvent[]> {
    return this.track(async () => {
      const id = this.ids.get(name);
      const count = Math.max(0, Math.floor(limit));
      if (id === undefined || count === 0) return [];
      const { rows } = await this.pool.query<SQL.EventRow>(SQL.EVENTS, [id, count]);
      return rows.map((r) => ({
        at: Number(r.at),
        state: r.up ? 'up' : 'down',
        previous: r.previous === null ? null : r.previous ? 'up' : 'down',
        reason: r.reason,
      }));
    });
  }

  uptimeTotals(nowMs: number): Promise<UptimeTotals[]> {
    // One ledger read at a time: each plans its reads from where the last one left the ledger.
    const next = this.uptimeReading.then(() => this.track(() => this.readUptime(nowMs)));
    this.uptimeReading = next.catch(() => undefined);
    return next;
  }

  /**
   * Reads the machines again and rebuilds the uptime figures at the next read: other boards on
   * this database write the history of the machines they own.
   */
  refresh(): Promise<void> {
    return this.queued(() => this.reload());
  }

  /** How many times the uptime ledger was rebuilt from every change (not advanced). */
  get ledgerRebuilds(): number {
    return this.rebuilds;
  }

  async has(name: string): Promise<boolean> {
    return this.ids.has(name);
  }

  /** Waits for the queued writes and the reads under way; the pool stays open (the caller's). */
  async close(): Promise<void> {
    this.closed = true;
    await this.writing;
    await Promise.allSettled([...this.reads]);
  }

  private track<T>(read: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the history store is closed'));
    const p = read();
    this.reads.add(p);
    const forget = () => this.reads.delete(p);
    p.then(forget, forget);
    return p;
  }

  /**
   * The ledger reads changes synchronously (ChangeSource), PostgreSQL answers asynchronously:
   * the changes this read will walk are fetched first (the windows' starts move from the last
   * read's `now` to this one's; everything since the longest window's start for a rebuild), then
   * the ledger reads them from memory. A fetch that a commit may have overtaken is made again;
   * a ledger that asks for more (it went stale on a change out of order) is rebuilt.
   */
  private async readUptime(now: number): Promise<UptimeTotals[]> {
    for (let attempt = 0; ; attempt += 1) {
      const last = this.ledgerAt;
      const rebuild = this.rebuildLedger || last === null || now < last;
      const ranges: [number, number][] = rebuild
        ? [[now - LONGEST, Number.MAX_SAFE_INTEGER]]
        : WINDOW_MS.map((w): [number, number] => [last - w, now - w]).filter(([a, b]) => b > a);
      const fetch = async () => {
        const before = this.commits;
        await this.changes.fetch(this.pool, ranges, rebuild ? now - LONGEST : null, now);
        // A commit sent or published meanwhile: the rows and the ledger may disagree.
        return before % 2 === 0 && before === this.commits;
      };
      // After a few races with commits, fetch between two batches (in the write queue).
      const fresh =
        attempt < OPTIMISTIC_READS ? await fetch() : await this.queued(async () => fetch());
      if (attempt > OPTIMISTIC_READS + 3) throw new Error('the uptime ledger could not be read');
      if (!fresh) continue;
      try {
        if (rebuild) {
          this.uptime.prime(now);
          this.rebuilds += 1;
        }
        const totals = this.readLedger(now);
        this.ledgerAt = now;
        this.rebuildLedger = false;
        return totals;
      } catch (error) {
        if (!(error instanceof SQL.MissingChanges)) throw error;
        this.rebuildLedger = true;
      } finally {
        this.changes.clear();
      }
    }
  }

  private readLedger(now: number): UptimeTotals[] {
    this.byName ??= sortedByName(this.ids);
    return ledgerTotals(this.uptime, this.byName, this.firstSeen, now);
  }

  /** Runs `task` in the write queue, between two batches. */
  private queued<T>(task: () => Promise<T>): Promise<T> {
    const next = this.writing.then(task);
    this.writing = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  private async writeNow(batch: WriteBatch): Promise<void> {
    if (this.uncertain) await this.reload();
    const client = await this.pool.connect();
    let pending: SQL.Pending;
    try {
      await client.query('BEGIN');
      pending = await this.writeBatch(client, batch);
      this.commits += 1;
      await client.query('COMMIT');
    } catch (error) {
      if (this.commits % 2 === 1) {
        // The COMMIT failed: whether it took effect is not known (a connection lost).
        this.commits += 1;
        this.uncertain = true;
      }
      const rolledBack = await client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      // A connection that could not roll back is not handed to anyone else.
      client.release(!rolledBack);
      throw error;
    }
    client.release();
    this.publish(pending, batch);
  }

  /** Reads the machines again (after a COMMIT that may or may not have taken effect). */
  private async reload(): Promise<void> {
    this.commits += 1;
    try {
      await this.load();
    } finally {
      this.commits += 1;
    }
    this.rebuildLedger = true;
    this.uncertain = false;
  }

  /** The batch's statements, in the open transaction; answers what to publish after COMMIT. */
  private async writeBatch(client: pg.PoolClient, batch: WriteBatch): Promise<SQL.Pending> {
    const pending: SQL.Pending = { added: new Map(), removed: new Map(), firstSeen: new Map() };
    const forget: number[] = [];
    for (const name of new Set(batch.forget)) {
      const id = this.idOf(name, pending);
      if (id === undefined) continue;
      forget.push(id);
      pending.removed.set(name, id);
    }
    if (forget.length > 0) {
      await client.query(SQL.FORGET_MACHINES, [forget]);
      this.retention.forgotten();
    }
    await this.addMachines(client, batch, pending);
    const id = (name: string): number => {
      const found = this.idOf(name, pending);
      if (found === undefined) throw new Error(`no id for machine ${name}`);
      return found;
    };
    const raw = new Rows.RawParams();
    const rows: Record<'m5' | 'h1', { id: number; sample: Sample }[]> = { m5: [], h1: [] };
    for (const { tier, name, sample } of batch.samples)
      if (tier === 'raw') raw.add(id(name), sample);
      else rows[tier].push({ id: id(name), sample });
    for (const sweep of batch.sweeps ?? []) raw.addSweep(sweep, id);
    if (raw.length > 0) await client.query(SQL.INSERT_RAW, raw.params());
    for (const tier of ['m5', 'h1'] as const)
      if (rows[tier].length > 0)
        await client.query(SQL.UPSERT[tier], Rows.aggregateParams(rows[tier]));
    if (batch.events.length > 0) await this.insertEvents(client, batch, pending, id);
    const written = { raw: raw.length, m5: rows.m5.length, h1: rows.h1.length };
    for (const [name, gone] of await this.retention.run(client, batch.cutoffs, written)) {
      pending.removed.set(name, gone);
      pending.added.delete(name);
    }
    return pending;
  }

  /** Ids for the batch's names this store does not know yet, in one statement. */
  private async addMachines(
    client: pg.PoolClient,
    batch: WriteBatch,
    pending: SQL.Pending,
  ): Promise<void> {
    const fresh = new Set<string>();
    for (const { name } of batch.samples)
      if (this.idOf(name, pending) === undefined) fresh.add(name);
    for (const sweep of batch.sweeps ?? [])
      for (const name of sweep.names) if (this.idOf(name, pending) === undefined) fresh.add(name);
    for (const { name } of batch.events)
      if (this.idOf(name, pending) === undefined) fresh.add(name);
    if (fresh.size === 0) return;
    const { rows } = await client.query<{ id: number; name: string }>(SQL.ADD_MACHINES, [
      [...fresh],
    ]);
    for (const r of rows) pending.added.set(r.name, r.id);
  }

  private async insertEvents(
    client: pg.PoolClient,
    batch: WriteBatch,
    pending: SQL.Pending,
    id: (name: string) => number,
  ): Promise<void> {
    const events = [...batch.events]
      .sort((a, b) => a.at - b.at)
      .map((e) => ({ ...e, m: id(e.name), at: Math.round(e.at) }));
    for (const { m, at } of events) {
      const first = pending.firstSeen.get(m) ?? this.firstSeen.get(m) ?? null;
      if (first === null || at < first) pending.firstSeen.set(m, at);
    }
    await client.query(SQL.INSERT_EVENTS, SQL.eventParams(events));
  }

  /** Published once the batch is committed (no await from here on: readers see it at once). */
  private publish(pending: SQL.Pending, batch: WriteBatch): void {
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
    const events = [...batch.events].sort((a, b) => a.at - b.at);
    for (const e of events) {
      const id = this.ids.get(e.name);
      if (id !== undefined && this.firstSeen.has(id))
        this.uptime.apply(id, Math.round(e.at), e.state === 'up');
    }
    this.commits += 1;
  }

  /** The id of a name as this batch sees it (undefined: none yet). */
  private idOf(name: string, pending: SQL.Pending): number | undefined {
    return pending.added.get(name) ?? (pending.removed.has(name) ? undefined : this.ids.get(name));
  }
}
