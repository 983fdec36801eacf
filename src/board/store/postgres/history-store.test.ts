import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../../../../harness/postgres.js';
import type { StateEvent, WriteBatch } from '../../history/history-store.js';
import { rawSample } from '../../history/tiers.js';
import { upMsWithin } from '../../history/uptime.js';
import { storeChangesContract } from '../history-contract-changes.case.js';
import { storeRowsContract } from '../history-contract-rows.case.js';
import { MACHINES_PER_BATCH } from './history-retention.js';
import { HISTORY_MIGRATIONS } from './history-schema.js';
import { openPostgresHistory } from './history-store.js';
import { migrate } from './migrate.js';

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  server?.destroy();
});

let databases = 0;
/** A pool on the database of `url` (ended after the file). */
const poolOf = (url: string): pg.Pool => {
  const pool = new pg.Pool({ connectionString: url });
  pools.push(pool);
  return pool;
};
/** A pool on a new, empty database. */
const freshPool = async (): Promise<pg.Pool> => {
  databases += 1;
  return poolOf(await server.createDatabase(`h${databases}`));
};

const openStore = async () => openPostgresHistory(await freshPool());
storeRowsContract('postgres', openStore);
storeChangesContract('postgres', openStore);

describe('PostgreSQL history', () => {
  const values = {
    cpu: 0.5,
    mem: 0.5,
    load: 1,
    disk: 0.5,
    latency_ms: 3,
    bells: 0,
    gpu_util: 0.25,
    gpu_mem: null,
    net_rx: 1000,
    net_tx: null,
    temp_max: 41,
  };
  const keep = { raw: 0, m5: 0, h1: 0 };
  const batch = (over: Partial<WriteBatch>): WriteBatch => ({
    samples: [],
    events: [],
    forget: [],
    cutoffs: keep,
    ...over,
  });
  const count = async (pool: pg.Pool, table: string) =>
    Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);

  it('keeps what was committed across a close and reopen (the pool stays open)', async () => {
    const pool = await freshPool();
    const store = await openPostgresHistory(pool);
    await store.write(
      batch({
        samples: [
          { tier: 'raw', name: 'alpha', sample: rawSample(100, true, { ...values, cpu: 0.1 }) },
        ],
        events: [{ name: 'alpha', at: 100_000, state: 'up', previous: null, reason: 'back' }],
      }),
    );
    await store.close();
    await expect(store.write(batch({}))).rejects.toThrow(/closed/);
    const again = await openPostgresHistory(pool);
    expect(await again.has('alpha')).toBe(true);
    expect((await again.samples('alpha', 'raw', 0, 200)).map((s) => s.avg.cpu)).toEqual([0.1]);
    expect(await again.events('alpha', 5)).toEqual([
      { at: 100_000, state: 'up', previous: null, reason: 'back' },
    ]);
    expect(await again.uptimeTotals(160_000)).toEqual([
      { name: 'alpha', firstSeen: 100_000, upMs: { '24h': 60_000, '7d': 60_000, '30d': 60_000 } },
    ]);
    await again.close();
  });

  it('writes a sweep of 10,000 machines with a constant number of statements', async () => {
    const pool = await freshPool();
    const statements: string[] = [];
    // Every statement goes through a pooled client's query (pool.query too).
    pool.on('connect', (client) => {
      const target = client as unknown as { query: (...args: unknown[]) => unknown };
      const query = target.query.bind(client);
      target.query = (...args: unknown[]) => {
        const first = args[0];
        statements.push(typeof first === 'string' ? first : JSON.stringify(first));
        return query(...args);
      };
    });
    const store = await openPostgresHistory(pool);
    const sweep = (machines: number, t: number, prefix: string) =>
      batch({
        samples: Array.from({ length: machines }, (_, i) => ({
          tier: 'raw' as const,
          name: `${prefix}${i}`,
          sample: rawSample(t, i % 3 !== 0, values),
        })),
        events: Array.from({ length: machines }, (_, i) => ({
          name: `${prefix}${i}`,
          at: t * 1000,
          state: 'up' as const,
          previous: null,
          reason: null,
        })),
      });
    const written = async (b: WriteBatch) => {
      statements.length = 0;
      await store.write(b);
      return [...statements];
    };
    await store.write(sweep(1, 500, 'w'));
    // New machines each time (their ids too), then the same 10,000 again.
    const few = await written(sweep(10, 1000, 'f'));
    const started = performance.now();
    const many = await written(sweep(10_000, 2000, 'm'));
    const ms = performance.now() - started;
    const again = await written(sweep(10_000, 3000, 'm'));
    if (process.env.HISTORY_TIMING) console.info(`10,000-machine batch: ${ms.toFixed(1)} ms`);
    // BEGIN, machine ids, raw, events, prune, idle machines, COMMIT: as many for 10 machines as
    // for 10,000 (the 10,000 known ones need no ids).
    expect(few.length).toBeLessThanOrEqual(7);
    expect(many.length).toBe(few.length);
    expect(again.length).toBe(few.length - 1);
    expect(await count(pool, 'history_raw')).toBe(20_011);
    expect(await count(pool, 'history_machines')).toBe(10_011);
    expect((await store.samples('m9999', 'raw', 0, 4000)).map((s) => [s.t, s.up])).toEqual([
      [2000, 0],
      [3000, 0],
    ]);
    expect((await store.uptimeTotals(3_000_000)).length).toBe(10_011);
    await store.close();
  });

  it('migrates once when two boards open a fresh database at the same time', async () => {
    databases += 1;
    const url = await server.createDatabase(`h${databases}`);
    const pool = poolOf(url);
    const same = poolOf(url);
    const [a, b] = await Promise.all([openPostgresHistory(pool), openPostgresHistory(same)]);
    await a.write(
      batch({ events: [{ name: 'alpha', at: 1, state: 'up', previous: null, reason: null }] }),
    );
    await b.close();
    const reopened = await openPostgresHistory(same);
    expect(await reopened.has('alpha')).toBe(true);
    const version = await pool.query<{ version: number }>(
      "SELECT version FROM panoptes_schema WHERE component = 'history'",
    );
    expect(version.rows).toEqual([{ version: HISTORY_MIGRATIONS.length }]);
    await Promise.all([a.close(), reopened.close()]);
  });

  it('merges a bucket written twice in one batch (one upsert cannot touch a row twice)', async () => {
    const store = await openPostgresHistory(await freshPool());
    const agg = (n: number, cpu: number) => ({
      t: 3600,
      n,
      up: 1,
      avg: { ...values, cpu },
      max: { ...values, cpu },
    });
    await store.write(
      batch({
        samples: [
          { tier: 'h1', name: 'alpha', sample: agg(1, 0.2) },
          { tier: 'h1', name: 'alpha', sample: agg(3, 0.6) },
        ],
      }),
    );
    const [row] = await store.samples('alpha', 'h1', 0, 7200);
    expect(row?.n).toBe(4);
    expect(row?.avg.cpu).toBeCloseTo(0.5, 9);
    expect(row?.max.cpu).toBe(0.6);
    await store.close();
  });

  it('deletes forgotten and emptied machines from the tables, a bounded number per batch', async () => {
    const pool = await freshPool();
    const store = await openPostgresHistory(pool);
    const names = Array.from({ length: MACHINES_PER_BATCH * 2 + 10 }, (_, i) => `m${i}`);
    const samples: WriteBatch['samples'] = [];
    for (const name of names)
      for (let t = 0; t < 30; t += 1)
        samples.push({ tier: 'raw', name, sample: rawSample(100 + t, true, values) });
    const events = names.map((name) => ({
      name,
      at: 100_000,
      state: 'up' as const,
      previous: null,
      reason: null,
    }));
    await store.write(batch({ samples, events }));
    // Forgetting 16+ machines of 30 rows each: more than one batch's budget of rows to delete.
    await store.write(batch({ forget: names.slice(0, 150) }));
    expect(await store.has('m0')).toBe(false);
    expect(await count(pool, 'history_raw')).toBeGreaterThan((names.length - 150) * 30);
    const gone = { raw: 200, m5: 200, h1: 200 };
    for (let i = 0; i < 20; i += 1) await store.write(batch({ cutoffs: gone }));
    expect((await Promise.all(names.map((n) => store.has(n)))).some(Boolean)).toBe(false);
    for (const table of ['history_raw', 'history_events', 'history_machines', 'history_forgotten'])
      expect(await count(pool, table)).toBe(0);
    await store.close();
  });

  it('keeps uptime exact when a change arrives out of order (the ledger is rebuilt)', async () => {
    const store = await openPostgresHistory(await freshPool());
    const H = 3_600_000;
    const D = 24 * H;
    const written: ({ name: string } & StateEvent)[] = [];
    const write = async (at: number, state: 'up' | 'down') => {
      const e = { name: 'alpha', at, state, previous: null, reason: null };
      written.push(e);
      await store.write(batch({ events: [e] }));
    };
    const expected = (now: number) => {
      const mine = [...written].sort((a, b) => a.at - b.at);
      const within = (w: number) => upMsWithin(mine, now - w, now);
      return [
        {
          name: 'alpha',
          firstSeen: mine[0]?.at,
          upMs: { '24h': within(D), '7d': within(7 * D), '30d': within(30 * D) },
        },
      ];
    };
    const t0 = 1_700_000_000_000;
    await write(t0, 'up');
    await write(t0 + 10 * H, 'down');
    // Opened at the wall clock's now: a read at t0, before it, rebuilds.
    expect(await store.uptimeTotals(t0 + 30 * H)).toEqual(expected(t0 + 30 * H));
    expect(store.ledgerRebuilds).toBe(2);
    await write(t0 + 5 * H, 'down');
    await write(t0 + 6 * H, 'up');
    // Rebuilt once for the changes out of order, then advanced; rebuilt when time goes back.
    const rebuilds: number[] = [];
    for (const now of [31 * H, 40 * H, 30 * D, 20 * H, 200 * H, 40 * D]) {
      expect(await store.uptimeTotals(t0 + now)).toEqual(expected(t0 + now));
      rebuilds.push(store.ledgerRebuilds);
    }
    expect(rebuilds).toEqual([3, 3, 3, 4, 4, 4]);
    await store.close();
  });

  it('migrates a history of schema 3 (doubles) to scaled integers, its rows kept', async () => {
    const pool = await freshPool();
    await migrate(pool, 'history', HISTORY_MIGRATIONS.slice(0, 3));
    await pool.query("INSERT INTO history_machines (name, first_seen) VALUES ('alpha', 1000)");
    await pool.query(
      `INSERT INTO history_raw (m, up, t, cpu, mem, load, disk, lat, bells, gpu_util, gpu_mem,
         net_rx, net_tx, temp_max)
       VALUES (1, 1, 100, 0.123456, 0.5, 1.234, 0.75, 12.34, 0, NULL, 9, 1000.5, NULL, 47.25),
         (1, 0, 105, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
    );
    const aggregate = `(m, t, n, up, cpu, cpu_x, mem, mem_x, load, load_x, disk, disk_x, lat, lat_x,
      bells, bells_x, gpu_util, gpu_util_x, gpu_mem, gpu_mem_x, net_rx, net_rx_x, net_tx, net_tx_x,
      temp_max, temp_max_x)`;
    const row =
      '(1, 300, 12, 0.33333, 0.16666, 0.5, 0.5, 0.5, 1, 2, 0.5, 0.5, 3, 4, 0, 0, NULL, NULL, NULL, NULL, 10, 20, 50, 40, 60, 70.04)';
    await pool.query(`INSERT INTO history_m5 ${aggregate} VALUES ${row}`);
    await pool.query(`INSERT INTO history_h1 ${aggregate} VALUES ${row.replace('300', '3600')}`);
    const store = await openPostgresHistory(pool);
    const raw = await store.samples('alpha', 'raw', 0, 200);
    expect(raw.map((r) => [r.t, r.up])).toEqual([
      [100, 1],
      [105, 0],
    ]);
    expect(raw[0]?.avg).toEqual({
      cpu: 0.1235,
      mem: 0.5,
      load: 1.23,
      disk: 0.75,
      latency_ms: 12.3,
      bells: 0,
      gpu_util: null,
      // A share beyond what its column holds is kept at the limit (3.2767), not refused.
      gpu_mem: 3.2767,
      net_rx: 1001,
      net_tx: null,
      temp_max: 47.3,
    });
    expect(Object.values(raw[1]?.avg ?? {}).every((v) => v === null)).toBe(true);
    for (const [tier, t] of [
      ['m5', 300],
      ['h1', 3600],
    ] as const) {
      const [s] = await store.samples('alpha', tier, 0, 7200);
      expect([s?.t, s?.n, s?.up, s?.avg.cpu, s?.max.cpu, s?.avg.net_tx, s?.max.temp_max]).toEqual([
        t,
        12,
        0.3333,
        0.1667,
        0.5,
        50,
        70,
      ]);
    }
    const types = await pool.query<{ data_type: string }>(
      `SELECT data_type FROM information_schema.columns
       WHERE table_name = 'history_raw' AND column_name IN ('cpu', 'load', 'net_rx', 't') ORDER BY column_name`,
    );
    expect(types.rows.map((r) => r.data_type)).toEqual([
      'smallint',
      'integer',
      'bigint',
      'integer',
    ]);
    const tables = await pool.query("SELECT 1 FROM pg_class WHERE relname LIKE 'history%_f8'");
    expect(tables.rowCount).toBe(0);
    await store.close();
  });

  it('lets a database error through to the caller', async () => {
    const pool = await freshPool();
    const store = await openPostgresHistory(pool);
    await pool.query('DROP TABLE history_raw');
    await expect(
      store.write(
        batch({ samples: [{ tier: 'raw', name: 'a', sample: rawSample(1, true, values) }] }),
      ),
    ).rejects.toThrow(/history_raw/);
    expect(await store.has('a')).toBe(false);
    await store.close();
  });
});
