import { join } from 'node:path';
import { startPostgres } from '../../harness/postgres.js';
import { token, writeBoardConfig } from '../board-kit.js';
import { cpuSeconds, type Program } from '../processes.js';
import { sleep } from '../stats.js';
import { ownedBy, ownedByMany, StandIns, webhook } from './cluster-kit.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';

const SWEEP_S = 5;
const FAILOVER_S = 10;
const IDS = ['a', 'b', 'c'] as const;

/**
 * Three boards on one PostgreSQL, in one run against one board alone: CPU per sweep,
 * polls per machine per sweep in steady state and after a kill -9, the failover time, a record's
 * lag on a board that did not poll it, and notifications per event.
 */
export async function clusterScenario(ctx: BenchContext): Promise<void> {
  const n = ctx.options.fleetSizes[1];
  const windowS = ctx.options.mode === 'quick' ? 10 : 20;
  const pg = await startPostgres();
  const agents = new StandIns(n);
  await agents.start();
  const hook = await webhook();
  const boardToken = token();
  const registration = token();
  const started: Program[] = [];
  try {
    const config = (id: string, store: string) =>
      writeBoardConfig(join(scenarioDir(ctx, 'cluster'), id), {
        board_token: boardToken,
        registration_token: registration,
        board_id: id,
        failover_after: FAILOVER_S,
        sweep_interval: SWEEP_S,
        poll_timeout: ctx.options.pollTimeoutS,
        history: false,
        store,
        machines: Array.from({ length: n }, (_, i) => ({
          name: `m${i}`,
          url: `http://127.0.0.1:${agents.port}/${id}/m${i}`,
          key: `machine-key-${i}-0123456789`,
        })),
        notify: {
          channels: [{ name: 'hook', url: hook.url }],
          rules: [{ events: ['down', 'up'], channels: ['hook'] }],
        },
      });
    // One board alone, on a database of its own: the baseline.
    const solo = await launchBoard(ctx, config('solo', await pg.createDatabase('solo')), 'solo');
    started.push(solo);
    await sleep(3 * SWEEP_S * 1000);
    const soloCpu = await cpuPerSweep([solo], windowS);
    await solo.stop();
    started.pop();

    const store = await pg.createDatabase('cluster');
    const boards = new Map<string, Program>();
    for (const id of IDS) {
      const b = await launchBoard(ctx, config(id, store), `cluster-${id}`);
      boards.set(id, b);
      started.push(b);
    }
    await sleep(3 * SWEEP_S * 1000 + 3000);
    agents.reset();
    const cpu = await cpuPerSweep([...boards.values()], windowS);
    const steady = pollsPerSweep(agents, windowS);
    const doubled = agents.doubled();
    ctx.log(
      `cluster: ${count(n)} machines, CPU per sweep one board ${soloCpu.toFixed(2)} s, three boards ${cpu.toFixed(2)} s; polls per machine per sweep max ${steady.max.toFixed(2)}, mean ${steady.mean.toFixed(2)}; ${doubled} machines polled by two boards`,
    );
    ctx.rows.push({
      what: `CPU per sweep of ${count(n)} machines, 3 boards together (one PostgreSQL) vs one board alone`,
      board: cpu,
      unit: 's',
      baselineLabel: 'one board',
      baseline: soloCpu,
      ratio: cpu / soloCpu,
      goal: '≤ 1.3×',
      met: cpu / soloCpu <= 1.3,
    });
    ctx.rows.push({
      what: `polls per machine per sweep, steady state (max over ${count(n)} machines; ${doubled} polled by two boards)`,
      board: steady.max,
      unit: '',
      baselineLabel: 'mean',
      baseline: steady.mean,
      ratio: steady.max,
      goal: '1',
      met: doubled === 0 && steady.max <= 1 + SWEEP_S / windowS,
    });

    // A record's lag on a board that did not poll it: a machine of a's changes; the time from
    // when a shows it (its sweep ended) to when b does.
    const probeMachine = ownedBy(agents, 'a');
    const t0 = Date.now();
    agents.probe.set(probeMachine, t0);
    const shows = async (board: Program) => {
      const answer = await fetch(`${board.url}/api/board`, {
        headers: { authorization: `Bearer ${boardToken}` },
      });
      const view = (await answer.json()) as {
        machines: { name: string; overview: { time?: string } | null }[];
      };
      const shown = view.machines.find((m) => m.name === `m${probeMachine}`)?.overview?.time;
      return shown === new Date(t0).toISOString();
    };
    let onA: number | null = null;
    let onB: number | null = null;
    await waitFor(
      async () => {
        const [seenA, seenB] = await Promise.all([
          shows(boards.get('a') as Program),
          shows(boards.get('b') as Program),
        ]);
        if (seenA && onA === null) onA = Date.now();
        if (seenB && onB === null) onB = Date.now();
        return onA !== null && onB !== null;
      },
      4 * SWEEP_S * 1000,
    );
    const lagMs = Math.max(0, (onB ?? 0) - (onA ?? 0));
    ctx.rows.push({
      what: `a record's lag on a board that did not poll it, behind the board that polled it (sweep ${SWEEP_S} s; both read about every 0.1–0.5 s)`,
      board: lagMs / 1000,
      unit: 's',
      baselineLabel: '1 sweep + 1 s',
      baseline: SWEEP_S + 1,
      ratio: lagMs / 1000 / (SWEEP_S + 1),
      goal: '≤ 1 sweep + 1 s',
      met: lagMs / 1000 <= SWEEP_S + 1,
    });

    // Notifications: 10 of c's machines go down; each is sent once.
    const ofC = ownedByMany(agents, 'c', 10);
    for (const i of ofC) agents.down.add(i);
    await sleep(3 * SWEEP_S * 1000);
    // What c acknowledged just before it is killed: actions queued for an announced machine
    // (and their journal entries), read from a afterwards.
    const c = boards.get('c') as Program;
    const call = (board: Program, path: string, method: string, bearer: string, body?: unknown) =>
      fetch(`${board.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const lab = { name: 'lab-kill', location: 'http://127.0.0.1:1/lab-kill' };
    await call(c, '/api/report', 'POST', registration, lab);
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const answer = await call(c, `/api/do/lab-kill/job${i}/start`, 'POST', boardToken);
      if (answer.status === 200) acknowledged.push(((await answer.json()) as { id: string }).id);
    }
    // kill -9 of c: its machines (down ones included) are polled by a or b again.
    const cMachines = ownedByMany(agents, 'c', n);
    agents.reset();
    kill9(c);
    const failoverMs = await waitFor(
      async () => {
        const others = agents.totals(['a', 'b']);
        return cMachines.every((i) => (others[i] ?? 0) > 0);
      },
      (FAILOVER_S + 3 * SWEEP_S) * 1000,
    );
    // Recovery of those 10, now sent by the boards that took them over.
    for (const i of ofC) agents.down.delete(i);
    await sleep(2 * SWEEP_S * 1000);
    agents.reset();
    await sleep(windowS * 1000);
    const after = pollsPerSweep(agents, windowS);
    const afterDoubled = agents.doubled();
    ctx.log(
      `cluster: kill -9 of c → its ${count(cMachines.length)} machines polled again after ${(failoverMs / 1000).toFixed(1)} s; after: polls per machine per sweep max ${after.max.toFixed(2)}, ${afterDoubled} doubled; record lag ${(lagMs / 1000).toFixed(1)} s`,
    );
    ctx.rows.push({
      what: `kill -9 of a board → every one of its ${count(cMachines.length)} machines polled again (failover_after ${FAILOVER_S} s, sweep ${SWEEP_S} s)`,
      board: failoverMs / 1000,
      unit: 's',
      baselineLabel: 'failover_after + 1 sweep',
      baseline: FAILOVER_S + SWEEP_S,
      ratio: failoverMs / 1000 / (FAILOVER_S + SWEEP_S),
      goal: '≤ failover_after + 1 sweep',
      met: failoverMs / 1000 <= FAILOVER_S + SWEEP_S,
    });
    ctx.rows.push({
      what: `polls per machine per sweep after the failover (max; ${afterDoubled} polled by two boards)`,
      board: after.max,
      unit: '',
      baselineLabel: 'mean',
      baseline: after.mean,
      ratio: after.max,
      goal: '1',
      met: afterDoubled === 0 && after.max <= 1 + SWEEP_S / windowS,
    });
    // Nothing c acknowledged is lost: a hands every queued action over, and journals each.
    const handed = new Set(
      (
        (await (
          await call(boards.get('a') as Program, '/api/report', 'POST', registration, lab)
        ).json()) as {
          actions: { id: string }[];
        }
      ).actions.map((x) => x.id),
    );
    const journal = (
      (await (
        await call(boards.get('a') as Program, '/api/journal?limit=10000', 'GET', boardToken)
      ).json()) as {
        entries: { detail: string }[];
      }
    ).entries.map((e) => e.detail);
    const lost = acknowledged.filter(
      (id) => !handed.has(id) || !journal.some((d) => d.includes(`queued as ${id}`)),
    ).length;
    ctx.log(
      `cluster: ${acknowledged.length} actions acknowledged by c before its kill -9; ${lost} lost`,
    );
    ctx.rows.push({
      what: `acknowledged actions and their journal entries lost on kill -9 of a board (${acknowledged.length} queued through it just before)`,
      board: lost,
      unit: '',
      baselineLabel: 'acknowledged',
      baseline: acknowledged.length,
      ratio: lost / Math.max(1, acknowledged.length),
      goal: '0',
      met: lost === 0 && acknowledged.length === 20,
    });
    const perEvent = ofC.map((i) => hook.count(`m${i}`, 'down') + hook.count(`m${i}`, 'up'));
    const worst = Math.max(...perEvent) / 2;
    const fewest = Math.min(...perEvent) / 2;
    ctx.log(`cluster: notifications (down + up) per machine: ${perEvent.join(', ')}`);
    ctx.rows.push({
      what: 'notifications per event (10 machines down, then up after a kill -9 of their board)',
      board: worst,
      unit: '',
      baselineLabel: 'fewest',
      baseline: fewest,
      ratio: worst,
      goal: 'exactly 1',
      met: worst === 1 && fewest === 1,
    });
  } finally {
    for (const p of started) await p.stop().catch(() => undefined);
    await agents.close();
    await hook.close();
    pg.destroy();
  }
}

/** SIGKILL of a program's process group, as `kill -9` would. */
function kill9(program: Program | undefined): void {
  if (program === undefined) return;
  try {
    process.kill(-program.pid, 'SIGKILL');
  } catch {
    program.child.kill('SIGKILL');
  }
}

/** Seconds of CPU the programs used per sweep, over `windowS`. */
async function cpuPerSweep(programs: readonly Program[], windowS: number): Promise<number> {
  const before = programs.map((p) => cpuSeconds(p.pid));
  await sleep(windowS * 1000);
  const used = programs.reduce((sum, p, i) => sum + cpuSeconds(p.pid) - (before[i] ?? 0), 0);
  return used / (windowS / SWEEP_S);
}

function pollsPerSweep(agents: StandIns, windowS: number): { max: number; mean: number } {
  const totals = agents.totals();
  let max = 0;
  let sum = 0;
  for (const t of totals) {
    max = Math.max(max, t);
    sum += t;
  }
  const sweeps = windowS / SWEEP_S;
  return { max: max / sweeps, mean: sum / totals.length / sweeps };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check().catch(() => false)) return Date.now() - started;
    await sleep(100);
  }
  throw new Error(`not within ${timeoutMs} ms`);
}
