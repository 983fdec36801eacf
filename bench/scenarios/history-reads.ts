import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'libsql';
import { configuredMachines, nextSweeps, token, writeBoardConfig } from '../board-kit.js';
import { Fleet } from '../processes.js';
import { median } from '../stats.js';
import { type WrkResult, wrk } from '../wrk.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';
import { loadHistory, RECORDED_FLEET } from './history-kit.js';

const SWEEP_S = 5;
const DAY_S = 86_400;
/** A stretch spans a sweep's end, as the boardP99 rounds do. */
const STRETCH_S = SWEEP_S + 1;
const READERS = 10;
/** Linux's USER_HZ, the unit of /proc's CPU times. */
const CLOCK_TICKS = 100;
/** The lag metric's tick (prom-client's default precision): its max is a block plus < this. */
const TICK_MS = 10;

/**
 * Ten clients reading 24 h histories (raw tier folded to 300 points) from a real board of the
 * large fleet: the board's longest event-loop block (GET /metrics) and GET /api/board p99,
 * each beside the same board over an equal stretch without reads, in alternating rounds.
 */
export async function historyReads(ctx: BenchContext): Promise<void> {
  const n = ctx.options.fleetSizes[1];
  const readMachines = ctx.options.mode === 'quick' ? 40 : 100;
  const rounds = ctx.options.mode === 'quick' ? 2 : 6;
  const fleet = await Fleet.start();
  try {
    const served = await fleet.serve({ machines: n, ...RECORDED_FLEET });
    const boardToken = token();
    const dir = writeBoardConfig(scenarioDir(ctx, 'history-reads'), {
      board_token: boardToken,
      sweep_interval: SWEEP_S,
      poll_timeout: ctx.options.pollTimeoutS,
      machines: configuredMachines(served.machines),
    });
    const names = served.machines.map((m) => m.name);
    const every = Math.max(1, Math.floor(names.length / readMachines));
    const read = names.filter((_, i) => i % every === 0).slice(0, readMachines);
    const started = performance.now();
    const rows = await prefill(join(dir, 'data', 'history.db'), names, read);
    ctx.log(
      `history reads: history.db prefilled, ${count(names.length)} machines, a day of raw sweeps for ${read.length} of them (${count(rows)} rows) in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    const board = await launchBoard(ctx, dir, 'history-reads');
    try {
      await nextSweeps(board.url, boardToken, 2, { everyMs: 1000, timeoutMs: 180_000 });
      await checkAnswer(ctx, board.url, boardToken, read[0] ?? '');
      const script = readsScript(dir, read, boardToken);
      const reads = (durationS: number) =>
        wrk({ url: board.url, connections: READERS, durationS, script, timeoutS: 30 });
      const blocks = { quiet: [] as number[], reads: [] as number[] };
      const p99s = { quiet: [] as number[], reads: [] as number[] };
      const answered: WrkResult[] = [];
      const cpu = { quiet: 0, reads: 0 };
      let readCount = 0;
      const stretch = async (withReads: boolean) => {
        await lagMaxMs(board.url, boardToken); // resets the histogram
        const side = withReads ? 'reads' : 'quiet';
        const cpu0 = mainThreadCpuMs(board.pid);
        if (withReads) {
          const r = await reads(STRETCH_S);
          answered.push(r);
          readCount += r.requests;
        } else await sleep(STRETCH_S * 1000);
        cpu[side] += mainThreadCpuMs(board.pid) - cpu0;
        blocks[side].push(await lagMaxMs(board.url, boardToken));
        const during = withReads ? reads(STRETCH_S + 2) : null;
        if (during !== null) await sleep(500);
        const r = await wrk({
          url: `${board.url}/api/board`,
          connections: 2,
          durationS: STRETCH_S,
          headers: { Authorization: `Bearer ${boardToken}` },
        });
        if (during !== null) answered.push(await during);
        p99s[side].push(r.p99);
      };
      for (let i = 0; i < rounds; i += 1) {
        // Alternating which side goes first: a burst of other load falls on both.
        await stretch(i % 2 === 1);
        await stretch(i % 2 === 0);
      }
      const failed = answered.reduce((sum, r) => sum + r.errors, 0);
      const total = answered.reduce((sum, r) => sum + r.requests, 0);
      if (failed > 0) ctx.problems.push(`history reads: ${failed} of ${total} reads failed`);
      // What the reads add to the board's own thread (the sweeps' share cancels out).
      const perRead = (cpu.reads - cpu.quiet) / readCount;
      ctx.log(
        `history reads: board main-thread CPU ${(cpu.reads / 1000).toFixed(1)} s in the read stretches, ${(cpu.quiet / 1000).toFixed(1)} s without: ${perRead.toFixed(1)} ms per read`,
      );
      ctx.log(
        `history reads: ${READERS} clients, ${median(answered.map((r) => r.requestsPerSec)).toFixed(0)} reads/s (median), p50 ${median(answered.map((r) => r.p50)).toFixed(0)} ms, ${failed} failed; lag max with reads ${fmtMs(blocks.reads)}, without ${fmtMs(blocks.quiet)}; GET /api/board p99 with reads ${fmtMs(p99s.reads)}, without ${fmtMs(p99s.quiet)}`,
      );
      // The median stretch: on shared cores a stretch's longest lag may be the board descheduled.
      const block = median(blocks.reads);
      const quietBlock = median(blocks.quiet);
      ctx.rows.push({
        what: `longest event-loop block during ${READERS} concurrent 24 h history reads (raw → 300 points), ${count(n)} machines (/metrics lag max, ${TICK_MS}-ms ticks; median of ${rounds} stretches of ${STRETCH_S} s)`,
        board: block,
        unit: 'ms',
        baselineLabel: 'no reads',
        baseline: quietBlock,
        ratio: block / quietBlock,
        goal: '≤ 20 ms',
        met: block <= 20,
      });
      const p99 = median(p99s.reads);
      const quiet = median(p99s.quiet);
      ctx.rows.push({
        what: `GET /api/board p99 during ${READERS} concurrent 24 h history reads, ${count(n)} machines (wrk -c2 ${STRETCH_S} s, median of ${rounds})`,
        board: p99,
        unit: 'ms',
        baselineLabel: 'no reads',
        baseline: quiet,
        ratio: p99 / quiet,
        goal: '≤ 1.2× no reads',
        met: p99 / quiet <= 1.2,
      });
    } finally {
      await board.stop();
    }
  } finally {
    await fleet.stop();
  }
}

/**
 * Makes history.db (the board's own schema, by its own store) with every machine named and a
 * day of raw sweeps, every SWEEP_S, for `read`, inserted in time order as the board writes
 * them. A day of all 10,000 machines would be 173 M rows (~7 GB): the reads cost per machine.
 */
async function prefill(path: string, names: string[], read: string[]): Promise<number> {
  const mods = await loadHistory();
  await mods.openLibsqlHistory(path).close();
  const db = new Database(path);
  try {
    db.exec('BEGIN');
    const add = db.prepare('INSERT INTO machines (name, first_seen) VALUES (?, NULL)');
    for (const name of names) add.run(name);
    const all = db.prepare('SELECT name, id FROM machines').raw(true).all() as [string, number][];
    const idOf = new Map(all);
    const ids = read.map((name) => {
      const id = idOf.get(name);
      if (id === undefined) throw new Error(`prefill: ${name} has no id`);
      return Number(id);
    });
    const insert = db.prepare(
      `INSERT INTO raw (m, t, up, cpu, mem, load, disk, lat, bells, gpu_util, gpu_mem, net_rx,
       net_tx, temp_max) VALUES (?, ?, 1, ?, ?, ?, ?, ?, 0, NULL, NULL, ?, ?, ?)`,
    );
    const now = Math.floor(Date.now() / 1000);
    let rows = 0;
    for (let t = now - DAY_S; t < now; t += SWEEP_S) {
      for (const [k, m] of ids.entries()) {
        const x = (k * 7919 + t * 31) % 10_000;
        insert.run(
          m,
          t,
          x,
          3000 + (x % 5000),
          x % 400,
          5000 + (x % 300) * 10,
          10 + (x % 900),
          x * 10,
          x * 3,
          400 + (x % 300),
        );
        rows += 1;
      }
    }
    db.exec('COMMIT');
    return rows;
  } finally {
    db.close();
  }
}

/** A wrk script reading the 24 h history of each machine of `read` in turn. */
function readsScript(dir: string, read: string[], boardToken: string): string {
  const lua = `
local names = { ${read.map((name) => `"${name}"`).join(', ')} }
local i = 0
local headers = { ["Authorization"] = "Bearer ${boardToken}" }
request = function()
  i = i % #names + 1
  return wrk.format("GET", "/api/machines/" .. names[i] .. "/history?range=24h", headers)
end
`;
  const file = join(dir, 'history-reads.lua');
  writeFileSync(file, lua);
  return file;
}

/** CPU ms the main thread of process `pid` has used (its thread id is the pid). */
function mainThreadCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS);
}

/** The board's longest event-loop lag since the last scrape, ms (the scrape resets it). */
async function lagMaxMs(url: string, boardToken: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, {
    headers: { Authorization: `Bearer ${boardToken}` },
  });
  const text = await response.text();
  const m = /^panoptes_board_nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text);
  if (m?.[1] === undefined) throw new Error(`GET /metrics: no event-loop lag (${response.status})`);
  return Number(m[1]) * 1000;
}

/** One read as a client gets it: 300 points, and the prefilled day behind them. */
async function checkAnswer(
  ctx: BenchContext,
  url: string,
  boardToken: string,
  name: string,
): Promise<void> {
  const response = await fetch(`${url}/api/machines/${name}/history?range=24h`, {
    headers: { Authorization: `Bearer ${boardToken}` },
  });
  const body = (await response.json()) as { series?: { t?: unknown[]; cpu?: unknown[] } };
  const points = body.series?.t?.length ?? 0;
  const filled = (body.series?.cpu ?? []).filter((v) => v !== null).length;
  // 300 buckets of 288 s; the first may fall before the prefilled day (it ended at the start).
  if (response.status !== 200 || points < 299 || filled < points - 2)
    ctx.problems.push(
      `history reads: GET ${name}/history answered ${response.status}, ${points} points, ${filled} with a value (expected 300, all but the first filled)`,
    );
}

function fmtMs(values: number[]): string {
  return `${values.map((v) => v.toFixed(1)).join(', ')} ms`;
}
