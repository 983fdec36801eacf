import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import Database from 'libsql';
import { migrate } from './libsql-schema.js';
import {
  type HistoryStore,
  METRICS,
  type MetricName,
  type Sample,
  type StateEvent,
  TIERS,
  type TierName,
  type UptimeTotals,
  type WriteBatch,
} from './store.js';
import { UPTIME_WINDOWS } from './uptime.js';

/** Rows written between two yields to the event loop (≈ 5 ms of work on the 2-core machine). */
export const CHUNK_ROWS = 250;
/** Rows a batch may prune per tier at least (more if it wrote more: pruning keeps pace). */
const PRUNE_MIN = 2000;
const REASON_MAX = 500;

const SCALE: Record<MetricName, number> = {
  cpu: 10_000,
  mem: 10_000,
  load: 100,
  disk: 10_000,
  latency_ms: 10,
  bells: 100,
};
const UP_SCALE = 10_000;

type Row = (number | null)[];
const STATE = ['down', 'up'] as const;

/** Opens (creating or migrating) DIR/data/history.db; throws with a clear message if it cannot. */
export function openLibsqlHistory(path: string): LibsqlHistoryStore {
  mkdirSync(dirname(path), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: 0 });
  } catch (error) {
    throw new Error(`cannot open ${path}: ${message(error)}`);
  }
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
    return new LibsqlHistoryStore(db);
  } catch (error) {
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

/** The HistoryStore in a SQLite file (WAL), through libsql. */
export class LibsqlHistoryStore implements HistoryStore {
  private readonly ids = new Map<string, number>();
  private readonly firstSeen = new Map<number, number | null>();
  private readonly sql;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly db: Database.Database) {
    const aggregate = (tier: string) =>
      db.prepare(
        `INSERT INTO ${tier} VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (m, t) DO UPDATE SET
         cpu = CASE WHEN cpu IS NULL THEN excluded.cpu WHEN excluded.cpu IS NULL THEN cpu ELSE (cpu * n + excluded.cpu * excluded.n) / (n + excluded.n) END,
         mem = CASE WHEN mem IS NULL THEN excluded.mem WHEN excluded.mem IS NULL THEN mem ELSE (mem * n + excluded.mem * excluded.n) / (n + excluded.n) END,
         load = CASE WHEN load IS NULL THEN excluded.load WHEN excluded.load IS NULL THEN load ELSE (load * n + excluded.load * excluded.n) / (n + excluded.n) END,
         disk = CASE WHEN disk IS NULL THEN excluded.disk WHEN excluded.disk IS NULL THEN disk ELSE (disk * n + excluded.disk * excluded.n) / (n + excluded.n) END,
         lat = CASE WHEN lat IS NULL THEN excluded.lat WHEN excluded.lat IS NULL THEN lat ELSE (lat * n + excluded.lat * excluded.n) / (n + excluded.n) END,
         bells = CASE WHEN bells IS NULL THEN excluded.bells WHEN excluded.bells IS NULL THEN bells ELSE (bells * n + excluded.bells * excluded.n) / (n + excluded.n) END,
         up = (up * n + excluded.up * excluded.n) / (n + excluded.n),
         cpu_x = max(coalesce(cpu_x, excluded.cpu_x), coalesce(excluded.cpu_x, cpu_x)),
         mem_x = max(coalesce(mem_x, excluded.mem_x), coalesce(excluded.mem_x, mem_x)),
         load_x = max(coalesce(load_x, excluded.load_x), coalesce(excluded.load_x, load_x)),
         disk_x = max(coalesce(disk_x, excluded.disk_x), coalesce(excluded.disk_x, disk_x)),
         lat_x = max(coalesce(lat_x, excluded.lat_x), coalesce(excluded.lat_x, lat_x)),
         bells_x = max(coalesce(bells_x, excluded.bells_x), coalesce(excluded.bells_x, bells_x)),
         n = n + excluded.n`,
      );
    const prune = (tier: string) =>
      db.prepare(
        `DELETE FROM ${tier} WHERE rowid IN (SELECT rowid FROM ${tier} ORDER BY rowid LIMIT ?) AND t < ?`,
      );
    const dropMachine = (table: string) =>
      db.prepare(
        `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE m = ? LIMIT ?)`,
      );
    this.sql = {
      addMachine: db.prepare('INSERT INTO machines (name, first_seen) VALUES (?, NULL)'),
      firstSeen: db.prepare('UPDATE machines SET first_seen = ? WHERE id = ?'),
      forgetMachine: db.prepare('DELETE FROM machines WHERE id = ?'),
      markForgotten: db.prepare('INSERT OR IGNORE INTO forgotten (id) VALUES (?)'),
      forgottenIds: db.prepare('SELECT id FROM forgotten LIMIT 16').pluck(),
      unmarkForgotten: db.prepare('DELETE FROM forgotten WHERE id = ?'),
      raw: db.prepare('INSERT INTO raw VALUES (?,?,?,?,?,?,?,?,?)'),
      m5: aggregate('m5'),
      h1: aggregate('h1'),
      event: db.prepare('INSERT INTO events VALUES (?,?,?,?,?)'),
      prune: { raw: prune('raw'), m5: prune('m5'), h1: prune('h1') },
      // The last change of a machine is kept whatever its age: it is the state still in force.
      pruneEvents: db.prepare(
        `DELETE FROM events WHERE rowid IN (SELECT rowid FROM events ORDER BY rowid LIMIT ?) AND at < ?
         AND EXISTS (SELECT 1 FROM events e WHERE e.m = events.m AND e.at > events.at)`,
      ),
      drop: ['raw', 'm5', 'h1', 'events'].map(dropMachine),
      selectRaw: selectFolded(db, 'raw'),
      selectAgg: {
        m5: selectFolded(db, 'm5'),
        h1: selectFolded(db, 'h1'),
      },
      events: db
        .prepare(
          'SELECT at, state, previous, reason FROM events WHERE m = ? ORDER BY at DESC, rowid DESC LIMIT ?',
        )
        .raw(true),
      // Each change lasts until the next (the last until now); the up ones are clipped to each
      // window, in SQL: 10,000 machines' changes cross into JavaScript as one row per machine.
      // Parameters: now, now, start 24h, now, start 7d, now, start 30d, start 30d.
      uptime: db
        .prepare(
          `WITH e AS (SELECT m, at, state, coalesce(lead(at) OVER (PARTITION BY m ORDER BY at, rowid), ?) AS until
             FROM events)
           SELECT m,
             sum(CASE WHEN state = 1 THEN max(0, min(until, ?) - max(at, ?)) ELSE 0 END),
             sum(CASE WHEN state = 1 THEN max(0, min(until, ?) - max(at, ?)) ELSE 0 END),
             sum(CASE WHEN state = 1 THEN max(0, min(until, ?) - max(at, ?)) ELSE 0 END)
           FROM e WHERE until > ? GROUP BY m`,
        )
        .raw(true),
    };
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
    const args = [from, from, step, step, id, from, Math.ceil(toS)];
    if (tier === 'raw') {
      return (this.sql.selectRaw.all(...args) as Row[]).map((r) => {
        const avg = {} as Record<MetricName, number | null>;
        const max = {} as Record<MetricName, number | null>;
        METRICS.forEach((k, i) => {
          const a = r[3 + i * 2] ?? null;
          const x = r[4 + i * 2] ?? null;
          avg[k] = a === null ? null : a / SCALE[k];
          max[k] = x === null ? null : x / SCALE[k];
        });
        return { t: Number(r[0]), n: Number(r[1]), up: Number(r[2]), avg, max };
      });
    }
    return (this.sql.selectAgg[tier].all(...args) as Row[]).map((r) => {
      const avg = {} as Record<MetricName, number | null>;
      const max = {} as Record<MetricName, number | null>;
      METRICS.forEach((k, i) => {
        const a = r[3 + i * 2] ?? null;
        const x = r[4 + i * 2] ?? null;
        avg[k] = a === null ? null : a / SCALE[k];
        max[k] = x === null ? null : x / SCALE[k];
      });
      return { t: Number(r[0]), n: Number(r[1]), up: Number(r[2]) / UP_SCALE, avg, max };
    });
  }

  async events(name: string, limit: number): Promise<StateEvent[]> {
    const id = this.ids.get(name);
    if (id === undefined) return [];
    return (this.sql.events.all(id, limit) as [number, number, number | null, string | null][]).map(
      ([at, state, previous, reason]) => ({
        at: Number(at),
        state: STATE[state] ?? 'down',
        previous: previous === null ? null : (STATE[previous] ?? 'down'),
        reason,
      }),
    );
  }

  async uptimeTotals(nowMs: number): Promise<UptimeTotals[]> {
    const w = UPTIME_WINDOWS;
    const rows = this.sql.uptime.all(
      nowMs,
      nowMs,
      nowMs - w['24h'],
      nowMs,
      nowMs - w['7d'],
      nowMs,
      nowMs - w['30d'],
      nowMs - w['30d'],
    ) as [number, number, number, number][];
    const byId = new Map(rows.map((r) => [r[0], r]));
    const out: UptimeTotals[] = [];
    for (const [name, id] of this.ids) {
      const first = this.firstSeen.get(id) ?? null;
      if (first === null) continue;
      const r = byId.get(id);
      out.push({
        name,
        firstSeen: first,
        upMs: { '24h': Number(r?.[1] ?? 0), '7d': Number(r?.[2] ?? 0), '30d': Number(r?.[3] ?? 0) },
      });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async has(name: string): Promise<boolean> {
    return this.ids.has(name);
  }

  async close(): Promise<void> {
    await this.writing;
    if (this.db.open) this.db.close();
  }

  private async writeNow(batch: WriteBatch): Promise<void> {
    const { sql } = this;
    const counts: Record<TierName, number> = { raw: 0, m5: 0, h1: 0 };
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const name of batch.forget) {
        const id = this.ids.get(name);
        if (id === undefined) continue;
        sql.forgetMachine.run(id);
        sql.markForgotten.run(id);
        this.ids.delete(name);
        this.firstSeen.delete(id);
      }
      let done = 0;
      for (const { tier, name, sample } of batch.samples) {
        const id = this.idOf(name);
        counts[tier] += 1;
        if (tier === 'raw') {
          sql.raw.run(
            id,
            Math.floor(sample.t),
            Math.round(sample.up),
            ...METRICS.map((k) => scaled(sample.avg[k], SCALE[k])),
          );
        } else {
          const values: Row = [id, sample.t, sample.n, scaled(sample.up, UP_SCALE)];
          for (const k of METRICS)
            values.push(scaled(sample.avg[k], SCALE[k]), scaled(sample.max[k], SCALE[k]));
          sql[tier].run(...values);
        }
        done += 1;
        if (done % CHUNK_ROWS === 0) await yieldToLoop();
      }
      for (const e of batch.events) {
        const id = this.idOf(e.name);
        sql.event.run(
          id,
          e.at,
          e.state === 'up' ? 1 : 0,
          e.previous === null ? null : e.previous === 'up' ? 1 : 0,
          e.reason?.slice(0, REASON_MAX) ?? null,
        );
        const first = this.firstSeen.get(id) ?? null;
        if (first === null || e.at < first) {
          sql.firstSeen.run(e.at, id);
          this.firstSeen.set(id, e.at);
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
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      // Ids handed out inside the rolled-back transaction are gone with it.
      this.loadMachines();
      throw error;
    }
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

  private idOf(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = Number(this.sql.addMachine.run(name).lastInsertRowid);
      this.ids.set(name, id);
      this.firstSeen.set(id, null);
    }
    return id;
  }

  private loadMachines(): void {
    this.ids.clear();
    this.firstSeen.clear();
    const rows = this.db.prepare('SELECT id, name, first_seen FROM machines').raw(true).all() as [
      number,
      string,
      number | null,
    ][];
    for (const [id, name, first] of rows) {
      this.ids.set(name, id);
      this.firstSeen.set(id, first);
    }
  }
}

const COLUMNS = ['cpu', 'mem', 'load', 'disk', 'lat', 'bells'] as const;

/**
 * One machine's rows of a tier folded into buckets in SQL (parameters: from, step, step, m,
 * from, to): the bucket start, samples, share up, then avg and max of each metric.
 */
function selectFolded(db: Database.Database, tier: TierName) {
  const metrics =
    tier === 'raw'
      ? COLUMNS.map((c) => `avg(${c}), max(${c})`)
      : COLUMNS.map(
          (c) =>
            `sum(${c} * n) * 1.0 / sum(CASE WHEN ${c} IS NULL THEN NULL ELSE n END), max(${c}_x)`,
        );
  const head = tier === 'raw' ? 'count(*), avg(up)' : 'sum(n), sum(up * n) * 1.0 / sum(n)';
  return db
    .prepare(
      `SELECT ? + CAST((t - ?) / ? AS INTEGER) * ? AS b, ${head}, ${metrics.join(', ')}
       FROM ${tier} WHERE m = ? AND t >= ? AND t < ? GROUP BY b ORDER BY b`,
    )
    .raw(true);
}

function scaled(value: number | null, scale: number): number | null {
  return value === null ? null : Math.round(value * scale);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
