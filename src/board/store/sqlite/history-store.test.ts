import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sample, WriteBatch } from '../../history/history-store.js';
import { rawSample } from '../../history/tiers.js';
import { storeChangesContract } from '../history-contract-changes.case.js';
import { storeRowsContract } from '../history-contract-rows.case.js';
import { MemoryHistoryStore } from '../memory/history-store.js';
import { MIGRATIONS } from './history-schema.js';
import { CHUNK_ROWS, MACHINES_PER_BATCH, openLibsqlHistory } from './history-store.js';

const dir = mkdtempSync(join(tmpdir(), 'panoptes-history-'));
let files = 0;
const fresh = () => {
  files += 1;
  return join(dir, `h${files}`, 'history.db');
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const openStore = async () => openLibsqlHistory(fresh());
storeRowsContract('libsql', openStore);
storeChangesContract('libsql', openStore);

describe('libsql history file', () => {
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

  it('keeps what was committed across a close and reopen', async () => {
    const path = fresh();
    const store = openLibsqlHistory(path);
    await store.write({
      samples: [{ tier: 'raw', name: 'alpha', sample: rawSample(100, true, values) }],
      events: [{ name: 'alpha', at: 100_000, state: 'up', previous: null, reason: null }],
      forget: [],
      cutoffs: keep,
    });
    await store.close();
    const again = openLibsqlHistory(path);
    expect(await again.has('alpha')).toBe(true);
    expect((await again.samples('alpha', 'raw', 0, 200)).map((s) => s.avg.cpu)).toEqual([0.5]);
    await again.close();
  });

  it('reads only what is committed, never a sweep whose write is under way', async () => {
    const store = openLibsqlHistory(fresh());
    const base = { forget: [], cutoffs: keep };
    await store.write({
      ...base,
      samples: [{ tier: 'raw', name: 'alpha', sample: rawSample(100, true, values) }],
      events: [{ name: 'alpha', at: 100_000, state: 'up', previous: null, reason: null }],
    });
    // Big enough that the write yields to the event loop several times before it commits.
    const samples = Array.from({ length: CHUNK_ROWS * 8 }, (_, i) => ({
      tier: 'raw' as const,
      name: i % 2 === 0 ? 'alpha' : 'beta',
      sample: rawSample(200 + i, true, values),
    }));
    const writing = store.write({
      ...base,
      samples,
      events: [
        { name: 'alpha', at: 150_000, state: 'down', previous: 'up', reason: 'r' },
        { name: 'beta', at: 150_000, state: 'up', previous: null, reason: null },
      ],
    });
    let settled = false;
    void writing.then(() => {
      settled = true;
    });
    const seen = async () => ({
      alpha: (await store.samples('alpha', 'raw', 0, 10_000)).length,
      beta: await store.has('beta'),
      events: (await store.events('alpha', 10)).length,
      uptime: (await store.uptimeTotals(200_000)).map((u) => [u.name, u.upMs['24h']]),
    });
    const before = { alpha: 1, beta: false, events: 1, uptime: [['alpha', 100_000]] };
    for (let i = 0; i < 4; i += 1) {
      await tick();
      expect(settled).toBe(false);
      expect(await seen()).toEqual(before);
    }
    await writing;
    expect(await seen()).toEqual({
      alpha: 1 + CHUNK_ROWS * 4,
      beta: true,
      events: 2,
      uptime: [
        ['alpha', 50_000],
        ['beta', 50_000],
      ],
    });
    await store.close();
  });

  it('prunes machines retention emptied a bounded number per batch, until none is left', async () => {
    const path = fresh();
    const store = openLibsqlHistory(path);
    const count = MACHINES_PER_BATCH * 2 + 10;
    const names = Array.from({ length: count }, (_, i) => `m${i}`);
    await store.write({
      samples: names.map((name) => ({ tier: 'raw', name, sample: rawSample(100, true, values) })),
      events: names.map((name) => ({
        name,
        at: 100_000,
        state: 'up',
        previous: null,
        reason: null,
      })),
      forget: [],
      cutoffs: keep,
    });
    const gone = { raw: 200, m5: 200, h1: 200 };
    const known = async () => (await Promise.all(names.map((n) => store.has(n)))).filter(Boolean);
    await store.write({ samples: [], events: [], forget: [], cutoffs: gone });
    expect((await known()).length).toBe(count - MACHINES_PER_BATCH);
    for (let i = 0; i < 3; i += 1)
      await store.write({ samples: [], events: [], forget: [], cutoffs: gone });
    expect(await known()).toEqual([]);
    await store.close();
    const { default: Database } = await import('libsql');
    const db = new Database(path);
    const left = db.prepare(
      'SELECT (SELECT count(*) FROM machines), (SELECT count(*) FROM events)',
    );
    expect(left.raw(true).get()).toEqual([0, 0]);
    db.close();
  });

  it('migrates a file of schema 1: its rows kept, one machine read from the covering index', async () => {
    const path = fresh();
    mkdirSync(dirname(path), { recursive: true });
    const { default: Database } = await import('libsql');
    const old = new Database(path);
    old.exec(MIGRATIONS[0] ?? '');
    old.pragma('user_version = 1');
    old.exec("INSERT INTO machines (name, first_seen) VALUES ('alpha', 100000)");
    old.exec('INSERT INTO raw VALUES (1, 100, 1, 5000, 5000, 100, 5000, 30, 0)');
    old.close();
    const store = openLibsqlHistory(path);
    expect((await store.samples('alpha', 'raw', 0, 200)).map((s) => s.avg.cpu)).toEqual([0.5]);
    await store.close();
    const db = new Database(path);
    expect(db.prepare('PRAGMA user_version').raw(true).get()).toEqual([MIGRATIONS.length]);
    const plan = db
      .prepare('EXPLAIN QUERY PLAN SELECT avg(cpu) FROM raw WHERE m = 1 AND t >= 0 AND t < 9')
      .raw(true)
      .all() as unknown[][];
    expect(plan.map((r) => r[3]).join(' ')).toMatch(/COVERING INDEX raw_m_t_all/);
    db.close();
  });

  it('folds like the memory store, through the bucket table and through GROUP BY alike', async () => {
    const store = openLibsqlHistory(fresh());
    const reference = new MemoryHistoryStore();
    const samples: WriteBatch['samples'] = [];
    for (let i = 0; i < 3000; i += 1) {
      const x = (i * 7919) % 997;
      const up = x % 7 !== 0;
      // Values even when down: the memory store's merge weighs a null by its samples (an
      // approximation of its own), the comparison is of the folding.
      const v = {
        cpu: x / 1000,
        mem: 0.5,
        load: x / 100,
        disk: 0.25,
        latency_ms: x / 10,
        bells: x % 3,
        gpu_util: x / 2000,
        gpu_mem: null,
        net_rx: x * 1000,
        net_tx: null,
        temp_max: 30 + x / 10,
      };
      samples.push({
        tier: 'raw',
        name: 'alpha',
        sample: rawSample(1000 + i * 5 + (x % 5), up, v),
      });
      if (i % 60 === 0)
        samples.push({
          tier: 'm5',
          name: 'alpha',
          sample: {
            t: 1000 + i * 5,
            n: 60,
            up: 0.75,
            avg: { ...v, mem: 0.5 },
            max: { ...v, mem: 0.75 },
          },
        });
    }
    const batch = { samples, events: [], forget: [], cutoffs: keep };
    await store.write(batch);
    await reference.write(batch);
    const round = (rows: Sample[]) =>
      JSON.parse(
        JSON.stringify(rows, (_, v) => (typeof v === 'number' ? Math.round(v * 1e6) / 1e6 : v)),
      );
    // Steps of 1 (as stored), of a point, and over BUCKETS_MAX buckets (GROUP BY).
    for (const [tier, from, to, step] of [
      ['raw', 900, 16_100, 97],
      ['raw', 5000, 6000, 1],
      ['raw', 0, 16_100, 7],
      ['m5', 1000, 16_100, 1000],
      ['m5', 0, 20_000, 1],
    ] as const) {
      expect(round(await store.samples('alpha', tier, from, to, step))).toEqual(
        round(await reference.samples('alpha', tier, from, to, step)),
      );
    }
    await store.close();
  });

  it('reports a file another process holds locked', async () => {
    const path = fresh();
    await openLibsqlHistory(path).close();
    const { default: Database } = await import('libsql');
    const other = new Database(path);
    other.exec('BEGIN EXCLUSIVE');
    expect(() => openLibsqlHistory(path)).toThrow(/is locked by another process/);
    other.exec('ROLLBACK');
    other.close();
  });

  it('refuses a file that is not a database, saying it is corrupt', async () => {
    const path = fresh();
    await openLibsqlHistory(path).close();
    writeFileSync(path, Buffer.alloc(8192, 7));
    rmSync(`${path}-wal`, { force: true });
    expect(() => openLibsqlHistory(path)).toThrow(/corrupt/);
  });

  it('refuses a file written by a newer schema', async () => {
    const path = fresh();
    const store = openLibsqlHistory(path);
    await store.close();
    const { default: Database } = await import('libsql');
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    expect(() => openLibsqlHistory(path)).toThrow(/schema version 99/);
  });
});
