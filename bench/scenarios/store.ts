import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { type PgServer, startPostgres } from '../../harness/postgres.js';
import { ROOT } from '../processes.js';
import { median, quantile } from '../stats.js';
import { type BenchContext, count, scenarioDir } from './context.js';
import { boardP99, bytes } from './history.js';
import {
  BenchClock,
  changeSet,
  type HistoryModules,
  loadHistory,
  type Store,
  type Tier,
  writeSweeps,
} from './history-kit.js';

const MACHINES = 10_000;
const SWEEP_S = 5;

interface Engines {
  openPostgresHistory(pool: pg.Pool, now?: () => number): Promise<Store>;
  PostgresStore: {
    open(settings: { url: string }, onIdleError: (e: Error) => void): Promise<JournalStore>;
  };
  SqliteStore: { open(dir: string): JournalStore };
}
interface JournalStore {
  journal: { append(entry: unknown): Promise<void> };
  close(): Promise<void>;
}

async function loadEngines(): Promise<Engines> {
  const at = (file: string) => pathToFileURL(join(ROOT, 'dist/board/store', file)).href;
  const [pgHistory, pgState, sqliteState] = (await Promise.all([
    import(at('postgres/history-store.js')),
    import(at('postgres/state-store.js')),
    import(at('sqlite/state-store.js')),
  ])) as Record<string, unknown>[];
  return {
    openPostgresHistory: pgHistory?.openPostgresHistory as Engines['openPostgresHistory'],
    PostgresStore: pgState?.PostgresStore as Engines['PostgresStore'],
    SqliteStore: sqliteState?.SqliteStore as Engines['SqliteStore'],
  };
}

/**
 * The store's two engines side by side in one run, on a private PostgreSQL started
 * here (fsync off, as in the tests: the figures are the board's and the protocol's, not a
 * disk's): a 10,000-machine sweep's history write, a journal append's latency, GET /api/board
 * p99 on a real board recording to PostgreSQL, and disk per machine per month.
 */
export async function storeScenario(ctx: BenchContext): Promise<void> {
  const server = await startPostgres();
  try {
    const mods = await loadHistory();
    const engines = await loadEngines();
    const dir = scenarioDir(ctx, 'store');
    mkdirSync(dir, { recursive: true });
    await historyWrite(ctx, mods, engines, server, dir);
    await journalAppend(ctx, engines, server, dir);
    await diskPerMachine(ctx, mods, engines, server, dir);
    await dayRead(ctx, mods, engines, server, dir);
    const url = await server.createDatabase('board');
    await boardP99(ctx, { store: url, label: 'PostgreSQL', goal: 1.2 });
  } finally {
    server.destroy();
  }
}

/** Wall time of one 10,000-machine sweep's history write (the recorder, as the board runs it). */
async function historyWrite(
  ctx: BenchContext,
  mods: HistoryModules,
  engines: Engines,
  server: PgServer,
  dir: string,
): Promise<void> {
  const sweeps = ctx.options.mode === 'quick' ? 6 : 16;
  const names = Array.from({ length: MACHINES }, (_, i) => `m${String(i).padStart(5, '0')}`);
  const start = (Math.floor(Date.now() / 3_600_000) + 1) * 3_600_000 - 10_000;
  const pool = new pg.Pool({ connectionString: await server.createDatabase('write') });
  const timed = async (store: Store): Promise<number[]> => {
    const clock = new BenchClock(start);
    const history = new mods.History(store, mods.HISTORY_DEFAULTS, clock, (e) => {
      throw e;
    });
    const wall: number[] = [];
    for (let i = 0; i < sweeps; i += 1) {
      clock.ms = start + i * SWEEP_S * 1000;
      const started = performance.now();
      history.record(changeSet(names, clock.ms, i));
      await history.recorder.settled();
      wall.push(performance.now() - started);
    }
    await history.close();
    return wall;
  };
  try {
    const embedded = await timed(mods.openLibsqlHistory(join(dir, 'write.db')));
    const postgres = await timed(await engines.openPostgresHistory(pool));
    const e = median(embedded.slice(1));
    const p = median(postgres.slice(1));
    ctx.log(
      `store: ${count(MACHINES)}-machine history write, wall ms — embedded ${embedded.map((x) => x.toFixed(0)).join(', ')}; PostgreSQL ${postgres.map((x) => x.toFixed(0)).join(', ')}`,
    );
    ctx.rows.push({
      what: `history write per sweep, ${count(MACHINES)} machines, PostgreSQL (wall, median of ${sweeps - 1}; ${((p / (SWEEP_S * 1000)) * 100).toFixed(1)} % of a ${SWEEP_S}-s interval)`,
      board: p,
      unit: 'ms',
      baselineLabel: 'embedded',
      baseline: e,
      ratio: p / e,
      goal: '≤ 10 % of the interval, ≤ 2× embedded',
      met: p <= SWEEP_S * 100 && p <= 2 * e,
    });
  } finally {
    await pool.end();
  }
}

/** p99 of a relay's journal entry, appended one after another (as a burst of relays would). */
async function journalAppend(
  ctx: BenchContext,
  engines: Engines,
  server: PgServer,
  dir: string,
): Promise<void> {
  const n = ctx.options.mode === 'quick' ? 300 : 2000;
  const run = async (store: JournalStore): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 1; i <= n; i += 1) {
      const started = performance.now();
      await store.journal.append({
        id: i,
        at: new Date().toISOString(),
        who: 'board',
        actor: { kind: 'board_token', name: 'board_token' },
        op: 'do',
        target: `m${i % 100}/backup/start`,
        outcome: 'done',
        status: 200,
        detail: 'relayed: {"what":"backup","action":"start","ok":true,"exit_code":0}',
      });
      times.push(performance.now() - started);
    }
    await store.close();
    return times;
  };
  const embedded = await run(engines.SqliteStore.open(join(dir, 'journal')));
  const postgres = await run(
    await engines.PostgresStore.open({ url: await server.createDatabase('journal') }, () => {}),
  );
  const p = quantile(postgres, 0.99);
  const e = quantile(embedded, 0.99);
  ctx.log(
    `store: journal append p50/p99 — embedded ${median(embedded).toFixed(2)}/${e.toFixed(2)} ms (in the WAL at once, fsynced behind it), PostgreSQL ${median(postgres).toFixed(2)}/${p.toFixed(2)} ms`,
  );
  ctx.rows.push({
    what: `journal append (a relay's entry) p99, PostgreSQL, ${count(n)} in a row`,
    board: p,
    unit: 'ms',
    baselineLabel: 'embedded',
    baseline: e,
    ratio: p / e,
    goal: '< 10 ms',
    met: p < 10,
  });
}

/** Bytes per row of each tier on each engine, then MB per machine per month at the defaults. */
async function diskPerMachine(
  ctx: BenchContext,
  mods: HistoryModules,
  engines: Engines,
  server: PgServer,
  dir: string,
): Promise<void> {
  const machines = 50;
  const rowsPerTier = ctx.options.mode === 'quick' ? 20_000 : 100_000;
  const now = Math.floor(Date.now() / 1000);
  const steps: Record<Tier, number> = { raw: SWEEP_S, m5: 300, h1: 3600 };
  const write = (store: Store, tier: Tier): Promise<void> => {
    const sweeps = rowsPerTier / machines;
    const times = Array.from({ length: sweeps }, (_, s) => now - (sweeps - s) * steps[tier]);
    return writeSweeps(store, tier, times, machines);
  };

  const perRow: Record<'embedded' | 'postgres', Record<Tier, number>> = {
    embedded: { raw: 0, m5: 0, h1: 0 },
    postgres: { raw: 0, m5: 0, h1: 0 },
  };
  for (const tier of ['raw', 'm5', 'h1'] as const) {
    const file = join(dir, `disk-${tier}.db`);
    const lite = mods.openLibsqlHistory(file);
    await write(lite, tier);
    await lite.close();
    perRow.embedded[tier] = bytes(file) / rowsPerTier;
    const pool = new pg.Pool({ connectionString: await server.createDatabase(`disk_${tier}`) });
    try {
      const store = await engines.openPostgresHistory(pool);
      const before = await historyBytes(pool);
      await write(store, tier);
      await store.close();
      await pool.query('VACUUM ANALYZE');
      perRow.postgres[tier] = ((await historyBytes(pool)) - before) / rowsPerTier;
    } finally {
      await pool.end();
    }
  }
  const month = (r: Record<Tier, number>) =>
    ((86_400 / SWEEP_S) * r.raw + 30 * 288 * r.m5 + 30 * 24 * r.h1) / 1e6;
  const e = month(perRow.embedded);
  const p = month(perRow.postgres);
  const fmt = (r: Record<Tier, number>) =>
    `raw ${r.raw.toFixed(0)}, 5-min ${r.m5.toFixed(0)}, hourly ${r.h1.toFixed(0)}`;
  ctx.log(
    `store: bytes per row — embedded ${fmt(perRow.embedded)}; PostgreSQL ${fmt(perRow.postgres)}`,
  );
  ctx.rows.push({
    what: 'history disk per machine, one month at the defaults, PostgreSQL (tables and indexes)',
    board: p,
    unit: 'MB',
    baselineLabel: 'embedded',
    baseline: e,
    ratio: p / e,
    goal: '≤ 1.5× embedded',
    met: p <= 1.5 * e,
  });
}

/**
 * One machine's day of raw sweeps read back as the 24h chart (300 points), on each engine in
 * turns. 50 machines written sweep by sweep, as the board writes them: one machine's rows lie
 * scattered among the others', so the read shows what the engine's index makes of that.
 */
async function dayRead(
  ctx: BenchContext,
  mods: HistoryModules,
  engines: Engines,
  server: PgServer,
  dir: string,
): Promise<void> {
  const machines = 50;
  const reads = 30;
  const day = 86_400;
  const now = Math.floor(Date.now() / 1000);
  const times = Array.from({ length: day / SWEEP_S }, (_, i) => now - day + i * SWEEP_S);
  const fill = (store: Store): Promise<void> => writeSweeps(store, 'raw', times, machines);

  const pool = new pg.Pool({ connectionString: await server.createDatabase('day') });
  try {
    const lite = mods.openLibsqlHistory(join(dir, 'day.db'));
    await fill(lite);
    const postgres = await engines.openPostgresHistory(pool);
    await fill(postgres);
    await pool.query('VACUUM ANALYZE');
    const clock = { now: () => now * 1000 };
    const histories = [lite, postgres].map(
      (store) => new mods.History(store, mods.HISTORY_DEFAULTS, clock, () => undefined),
    );
    const times: number[][] = [[], []];
    for (let i = 0; i < reads; i += 1)
      for (const [k, history] of histories.entries()) {
        const started = performance.now();
        await history.series(`m${i % machines}`, '24h', { fromS: now - day, toS: now }, 300);
        times[k]?.push(performance.now() - started);
      }
    await Promise.all(histories.map((h) => h.close()));
    const [e, p] = times.map((t) => quantile(t, 0.99)) as [number, number];
    const [em, pm] = times.map((t) => median(t)) as [number, number];
    ctx.log(
      `store: 24h of one machine (${count(day / SWEEP_S)} raw rows of ${machines} machines), median/p99 ms — embedded ${em.toFixed(1)}/${e.toFixed(1)}, PostgreSQL ${pm.toFixed(1)}/${p.toFixed(1)}`,
    );
    ctx.rows.push({
      what: `history of one machine, range=24h, PostgreSQL (${count(day / SWEEP_S)} raw rows → 300 points), p99 of ${reads}`,
      board: p,
      unit: 'ms',
      baselineLabel: 'embedded',
      baseline: e,
      ratio: p / e,
      goal: 'stated',
      met: null,
    });
  } finally {
    await pool.end();
  }
}

async function historyBytes(pool: pg.Pool): Promise<number> {
  const result = await pool.query<{ n: string | null }>(
    "SELECT sum(pg_total_relation_size(oid)) AS n FROM pg_class WHERE relkind = 'r' AND relname LIKE 'history%'",
  );
  return Number(result.rows[0]?.n ?? 0);
}
