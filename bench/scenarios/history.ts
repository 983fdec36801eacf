import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import Database from 'libsql';
import { configuredMachines, nextSweeps, token, writeBoardConfig } from '../board-kit.js';
import { Fleet } from '../processes.js';
import { median, quantile } from '../stats.js';
import { best, type WrkResult, wrk } from '../wrk.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';
import {
  type Batch,
  BenchClock,
  changeSet,
  type HistoryModules,
  loadHistory,
  RECORDED_FLEET,
  type Tier,
  writeSweeps,
} from './history-kit.js';
import { historyReads } from './history-reads.js';

const MACHINES = 10_000;
const SWEEP_S = 5;
const DAY_S = 86_400;
const RAW_PER_DAY = DAY_S / SWEEP_S;

/**
 * History at 10,000 machines: a sweep's write (CPU and the longest event-loop block), GET
 * /api/board p99 on a real board recording while it sweeps, one machine's query over 30 days,
 * /api/uptime for 10,000 machines, disk per machine, and a real board under 24 h history reads.
 */
export async function historyScenario(ctx: BenchContext): Promise<void> {
  const mods = await loadHistory();
  const dir = scenarioDir(ctx, 'history');
  mkdirSync(dir, { recursive: true });
  await writeCost(ctx, mods, dir);
  const perRow = await queryAndDisk(ctx, mods, dir);
  await uptime(ctx, mods, dir);
  disk(ctx, perRow);
  await boardP99(ctx);
  await historyReads(ctx);
}

/** Drives the recorder with 10,000-machine change sets; the write's CPU and longest block. */
async function writeCost(ctx: BenchContext, mods: HistoryModules, dir: string): Promise<void> {
  const sweeps = ctx.options.mode === 'quick' ? 8 : 24;
  const names = Array.from({ length: MACHINES }, (_, i) => `m${String(i).padStart(5, '0')}`);
  // Start 10 s before an hour: the third sweep closes a 5-minute and an hourly bucket.
  const start = (Math.floor(Date.now() / 3_600_000) + 1) * 3_600_000 - 10_000;
  const clock = new BenchClock(start);
  const history = new mods.History(
    mods.openLibsqlHistory(join(dir, 'write.db')),
    mods.HISTORY_DEFAULTS,
    clock,
    (e) => {
      throw e;
    },
  );
  const cpu: number[] = [];
  const blocks: number[] = [];
  for (let i = 0; i < sweeps; i += 1) {
    clock.ms = start + i * SWEEP_S * 1000;
    const loop = monitorEventLoopDelay({ resolution: 1 });
    const before = process.cpuUsage();
    loop.enable();
    history.record(changeSet(names, clock.ms, i));
    await history.recorder.settled();
    loop.disable();
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
    blocks.push(loop.max / 1e6);
  }
  await history.close();
  ctx.log(
    `history: ${count(MACHINES)}-machine sweeps written, CPU ${cpu.map((c) => c.toFixed(0)).join(', ')} ms; longest blocks ${blocks.map((b) => b.toFixed(0)).join(', ')} ms`,
  );
  const typical = median(cpu.slice(1));
  const worst = Math.max(...cpu);
  ctx.rows.push({
    what: `history write per sweep, ${count(MACHINES)} machines (CPU, median of ${sweeps - 1}; worst ${worst.toFixed(0)} ms with the 5-min + hourly flush)`,
    board: typical,
    unit: 'ms',
    baselineLabel: 'sweep_interval',
    baseline: SWEEP_S * 1000,
    ratio: typical / (SWEEP_S * 1000),
    goal: '≤ 10 % of the interval',
    met: typical <= SWEEP_S * 100,
  });
  const block = Math.max(...blocks);
  ctx.rows.push({
    what: `longest event-loop block while writing a ${count(MACHINES)}-machine sweep (requests wait at most this)`,
    board: block,
    unit: 'ms',
    baselineLabel: '',
    baseline: 50,
    ratio: block / 50,
    goal: '< 50 ms (p99 budget)',
    met: block < 50,
  });
}

/** Bytes per row of each tier, from files holding only that tier. */
type PerRow = Record<Tier, number>;

/** Thirty days of synthetic data for a few machines: one machine's query per tier; bytes per row. */
async function queryAndDisk(ctx: BenchContext, mods: HistoryModules, dir: string): Promise<PerRow> {
  const machines = ctx.options.mode === 'quick' ? 4 : 20;
  const now = Math.floor(Date.now() / 1000);
  const plan: { tier: Tier; step: number; span: number; range: string; windowS: number }[] = [
    { tier: 'raw', step: SWEEP_S, span: DAY_S, range: '24h', windowS: DAY_S },
    { tier: 'm5', step: 300, span: 30 * DAY_S, range: '7d', windowS: 7 * DAY_S },
    { tier: 'h1', step: 3600, span: 30 * DAY_S, range: '30d', windowS: 30 * DAY_S },
  ];
  const perRow = { raw: Number.NaN, m5: Number.NaN, h1: Number.NaN } as PerRow;
  for (const p of plan) {
    const file = join(dir, `query-${p.tier}.db`);
    const store = mods.openLibsqlHistory(file);
    const sweepTimes = Array.from({ length: p.span / p.step }, (_, i) => now - p.span + i * p.step);
    const rows = sweepTimes.length * machines;
    await writeSweeps(store, p.tier, sweepTimes, machines, p.tier === 'raw' ? 1 : p.step / SWEEP_S);
    await store.close();
    perRow[p.tier] = bytes(file) / rows;
    const history = new mods.History(
      mods.openLibsqlHistory(file),
      mods.HISTORY_DEFAULTS,
      { now: () => now * 1000 },
      () => undefined,
    );
    const times: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const started = performance.now();
      const answer = await history.series(
        `m${i % machines}`,
        p.range,
        { fromS: now - p.windowS, toS: now },
        300,
      );
      JSON.stringify(answer);
      times.push(performance.now() - started);
    }
    await history.close();
    const p50 = median(times);
    const p99 = quantile(times, 0.99);
    ctx.log(
      `history: ${p.range} query (${p.tier}), ${count(rows)} rows of ${machines} machines: median ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms; ${perRow[p.tier].toFixed(1)} bytes per row`,
    );
    ctx.rows.push({
      what: `history of one machine, range=${p.range} (${p.tier} tier, ${count(p.windowS / p.step)} rows → 300 points), p99 of 30`,
      board: p99,
      unit: 'ms',
      baselineLabel: '',
      baseline: 20,
      ratio: p99 / 20,
      goal: p.range === '30d' ? '< 20 ms' : '< 20 ms (same budget)',
      met: p99 < 20,
    });
  }
  return perRow;
}

/** /api/uptime over 10,000 machines with 9 state changes each in the last 40 days. */
async function uptime(ctx: BenchContext, mods: HistoryModules, dir: string): Promise<void> {
  const now = Date.now();
  const store = mods.openLibsqlHistory(join(dir, 'uptime.db'));
  const names = Array.from({ length: MACHINES }, (_, i) => `m${String(i).padStart(5, '0')}`);
  const batch: Batch = { samples: [], events: [], forget: [], cutoffs: { raw: 0, m5: 0, h1: 0 } };
  for (const [i, name] of names.entries()) {
    batch.events.push({
      name,
      at: now - 40 * DAY_S * 1000,
      state: 'up',
      previous: null,
      reason: null,
    });
    for (let k = 0; k < 4; k += 1) {
      const down = now - ((k + 1) * 7 - (i % 5)) * DAY_S * 1000;
      batch.events.push({ name, at: down, state: 'down', previous: 'up', reason: 'timed out' });
      batch.events.push({ name, at: down + 600_000, state: 'up', previous: 'down', reason: null });
    }
  }
  batch.events.sort((a, b) => a.at - b.at);
  await store.write(batch);
  const clock = new BenchClock(now);
  const history = new mods.History(store, mods.HISTORY_DEFAULTS, clock, () => undefined);
  const times: number[] = [];
  const calls = ctx.options.mode === 'quick' ? 5 : 15;
  for (let i = 0; i < calls; i += 1) {
    clock.ms += 11_000; // past the 10-s cache: every call computes
    const started = performance.now();
    JSON.stringify({ machines: await history.uptime(names) });
    times.push(performance.now() - started);
  }
  await history.close();
  const worst = Math.max(...times);
  ctx.log(
    `history: /api/uptime for ${count(MACHINES)} machines: ${times.map((t) => t.toFixed(0)).join(', ')} ms`,
  );
  ctx.rows.push({
    what: `/api/uptime, ${count(MACHINES)} machines × 9 state changes (computed, not cached; worst of ${calls})`,
    board: worst,
    unit: 'ms',
    baselineLabel: '',
    baseline: 200,
    ratio: worst / 200,
    goal: '< 200 ms',
    met: worst < 200,
  });
}

/** Disk per machine per month and for 10,000 machines over the default retention. */
function disk(ctx: BenchContext, perRow: PerRow): void {
  const month = RAW_PER_DAY * perRow.raw + 30 * 288 * perRow.m5 + 30 * 24 * perRow.h1;
  const retained = RAW_PER_DAY * perRow.raw + 30 * 288 * perRow.m5 + 400 * 24 * perRow.h1;
  ctx.log(
    `history: bytes per row raw ${perRow.raw.toFixed(1)}, 5-min ${perRow.m5.toFixed(1)}, hourly ${perRow.h1.toFixed(1)}`,
  );
  const rawDay = RAW_PER_DAY * perRow.raw;
  ctx.rows.push({
    what: 'history disk per machine, one month at the defaults (1 day of 5-s sweeps, 30 d of 5-min, 30 d of hourly)',
    board: month / 1e6,
    unit: 'MB',
    baselineLabel: 'of which raw',
    baseline: rawDay / 1e6,
    ratio: rawDay / month,
    goal: 'stated',
    met: null,
  });
  ctx.rows.push({
    what: `history disk, ${count(MACHINES)} machines at the full default retention (+ 400 d hourly)`,
    board: (retained * MACHINES) / 1e9,
    unit: 'GB',
    baselineLabel: 'of which raw',
    baseline: (rawDay * MACHINES) / 1e9,
    ratio: rawDay / retained,
    goal: 'stated',
    met: null,
  });
}

/**
 * GET /api/board p99 on the real board sweeping every 5 s and recording each sweep, against the
 * same board with `history: false` (the baseline: what the sweep alone costs the readers).
 * `on.store` records to that PostgreSQL instead of the embedded engine (the store scenario).
 */
export async function boardP99(
  ctx: BenchContext,
  on: { store: string | null; label: string; goal: number | null } = {
    store: null,
    label: 'embedded',
    goal: null,
  },
): Promise<void> {
  const n = ctx.options.fleetSizes[1];
  const fleet = await Fleet.start();
  try {
    const served = await fleet.serve({ machines: n, ...RECORDED_FLEET });
    const recorded = await p99Of(ctx, configuredMachines(served.machines), on.store ?? true);
    const off = await p99Of(ctx, configuredMachines(served.machines), false);
    const ratio = recorded / off;
    ctx.rows.push({
      what: `GET /api/board p99, ${count(n)} machines swept every ${SWEEP_S} s and recorded (${on.label}; wrk -c2 ${SWEEP_S + 1} s, best of ${ctx.options.wrkRounds})`,
      board: recorded,
      unit: 'ms',
      baselineLabel: 'history: false',
      baseline: off,
      ratio,
      goal: on.goal === null ? '< 50 ms' : `≤ ${on.goal}× history: false`,
      met: on.goal === null ? recorded < 50 : ratio <= on.goal,
    });
  } finally {
    await fleet.stop();
  }
}

async function p99Of(
  ctx: BenchContext,
  machines: Record<string, string>[],
  /** true: history on the embedded engine; a URL: on that PostgreSQL; false: no history. */
  recording: boolean | string,
): Promise<number> {
  const history = recording !== false;
  const store = typeof recording === 'string' ? recording : null;
  const boardToken = token();
  const dir = writeBoardConfig(scenarioDir(ctx, `history-board-${history ? 'on' : 'off'}`), {
    board_token: boardToken,
    // The default interval: each sweep's write lands inside the wrk rounds below.
    sweep_interval: SWEEP_S,
    poll_timeout: ctx.options.pollTimeoutS,
    machines,
    ...(history ? {} : { history: false }),
    ...(store === null ? {} : { store }),
  });
  const board = await launchBoard(ctx, dir, `history-${history ? 'on' : 'off'}`);
  try {
    // Past the cold sweep; a full run past the first warm one too.
    const settle = ctx.options.mode === 'quick' ? 1 : 2;
    await nextSweeps(board.url, boardToken, settle, { everyMs: 1000, timeoutMs: 180_000 });
    const results: WrkResult[] = [];
    for (let i = 0; i < ctx.options.wrkRounds; i += 1) {
      results.push(
        await wrk({
          url: `${board.url}/api/board`,
          connections: 2,
          durationS: SWEEP_S + 1,
          headers: { Authorization: `Bearer ${boardToken}` },
        }),
      );
    }
    const r = best(results);
    const size =
      history && store === null
        ? ` history.db ${(bytes(join(dir, 'data', 'history.db')) / 1e6).toFixed(1)} MB`
        : '';
    ctx.log(
      `history: real board of ${count(machines.length)}, history ${history ? 'on' : 'off'}: GET /api/board p99 ${r.p99} ms (rounds: ${results.map((x) => x.p99).join(', ')} ms);${size}`,
    );
    return r.p99;
  } finally {
    await board.stop();
  }
}

/** The bytes a database file holds (its pages, the WAL's included). */
export function bytes(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    const pages = db.prepare('PRAGMA page_count').raw(true).get() as [number];
    const size = db.prepare('PRAGMA page_size').raw(true).get() as [number];
    return pages[0] * size[0];
  } finally {
    db.close();
  }
}
