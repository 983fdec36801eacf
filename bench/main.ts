import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { type BenchOptions, parseOptions, UsageError } from './options.js';
import { fdLimit, killEverything } from './processes.js';
import { agentFootprintScenario } from './scenarios/agent-footprint.js';
import { agentUpdateScenario } from './scenarios/agent-update.js';
import { emptyBoardAtRest } from './scenarios/at-rest.js';
import { checksScenario } from './scenarios/checks.js';
import { clusterScenario } from './scenarios/cluster.js';
import type { BenchContext } from './scenarios/context.js';
import { fleetScenario } from './scenarios/fleet.js';
import { gpuScenario } from './scenarios/gpu.js';
import { historyScenario } from './scenarios/history.js';
import { historyReads } from './scenarios/history-reads.js';
import { inboxScenario } from './scenarios/inbox.js';
import { labelsScenario } from './scenarios/labels.js';
import { machinesNowScenario } from './scenarios/machines-now.js';
import { notifyScenario } from './scenarios/notify.js';
import { peopleScenario } from './scenarios/people.js';
import { reportsScenario } from './scenarios/reports.js';
import { soakScenario } from './scenarios/soak.js';
import { storeScenario } from './scenarios/store.js';
import { tlsReportsScenario } from './scenarios/tls-reports.js';
import { missingFigures, renderTable } from './table.js';

let loadAtStart = Number.NaN;

/**
 * `npm run bench`: starts the fleet simulator, the real board program, the bare baselines and
 * wrk, measures, prints one table, and stops everything it started.
 */
async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
  const started = Date.now();
  const log = (message: string) =>
    process.stderr.write(
      `bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s: ${message}\n`,
    );
  const wrkVersion = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (wrkVersion.error !== undefined) {
    process.stderr.write('bench: wrk is missing; install it with `apt-get install -y wrk`\n');
    return 1;
  }
  const machine = describeMachine((wrkVersion.stdout + wrkVersion.stderr).split('\n')[0] ?? '');
  process.stdout.write(`${machine}\n`);
  if (options.boardScript !== null) log(`measuring the board program ${options.boardScript}`);
  if (options.boardNodeArgs.length > 0)
    log(`the boards are started with node ${options.boardNodeArgs.join(' ')}`);
  loadAtStart = loadavg()[0] ?? Number.NaN;
  if (loadAtStart > 1) {
    log(
      `the machine is busy before the bench starts (load ${loadAtStart.toFixed(1)}): figures will be noisy`,
    );
  }

  const tmp = mkdtempSync(join(tmpdir(), 'panoptes-bench-'));
  if (options.cpuProfDir !== null) mkdirSync(options.cpuProfDir, { recursive: true });
  const ctx: BenchContext = {
    options,
    tmp,
    rows: [],
    problems: [],
    emptyBoardRssMb: Number.NaN,
    emptyBoard: { boardMb: Number.NaN, bareMb: Number.NaN, method: '' },
    log,
  };

  let running = 'the start';
  const watchdog = setTimeout(() => {
    log(`over the time limit of ${options.deadlineS} s: stopping everything`);
    // A run cut short is a failed run, whatever the rows produced so far say.
    ctx.problems.push(`stopped by the ${options.deadlineS}-s watchdog during ${running}`);
    report(ctx, started, machine);
    killEverything();
    rmSync(tmp, { recursive: true, force: true });
    process.exit(1);
  }, options.deadlineS * 1000);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      killEverything();
      rmSync(tmp, { recursive: true, force: true });
      process.exit(130);
    });
  }

  const part = (name: string) => runsPart(options, name);
  const attempt = async (name: string, run: () => Promise<void>) => {
    running = name;
    const began = Date.now();
    try {
      await run();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      ctx.problems.push(`${name} failed: ${message}`);
      log(`${name} failed: ${message}`);
    }
    log(`${name}: ${((Date.now() - began) / 1000).toFixed(0)} s`);
  };
  try {
    await attempt('empty board', async () => {
      ctx.emptyBoard = await emptyBoardAtRest(ctx);
      ctx.emptyBoardRssMb = ctx.emptyBoard.boardMb;
    });
    if (options.soak) {
      await attempt('soak', () => soakScenario(ctx));
    } else {
      const [small, large] = options.fleetSizes;
      // `--only fleet-small` / `fleet-large`: one of the two fleets (a development aid).
      if (part('fleet') || part('fleet-small'))
        await attempt(`fleet of ${small}`, () => fleetScenario(ctx, small, 'small'));
      if (part('fleet') || part('fleet-large'))
        await attempt(`fleet of ${large}`, () => fleetScenario(ctx, large, 'large'));
      if (part('reports')) await attempt('reports', () => reportsScenario(ctx));
      if (part('tls')) await attempt('tls reports', () => tlsReportsScenario(ctx));
      if (part('notify')) await attempt('notify', () => notifyScenario(ctx));
      if (part('history')) await attempt('history', () => historyScenario(ctx));
      // `--only history-reads`: the history scenario's read rows alone (a development aid).
      else if (part('history-reads')) await attempt('history reads', () => historyReads(ctx));
      if (part('store')) await attempt('store', () => storeScenario(ctx));
      if (part('gpu')) await attempt('gpu', () => gpuScenario(ctx));
      if (part('inbox')) await attempt('inbox', () => inboxScenario(ctx));
      if (part('machines-now')) await attempt('machines-now', () => machinesNowScenario(ctx));
      if (part('labels')) await attempt('labels', () => labelsScenario(ctx));
      if (part('people')) await attempt('people', () => peopleScenario(ctx));
      if (part('checks')) await attempt('checks', () => checksScenario(ctx));
      if (part('agent-update')) await attempt('agent-update', () => agentUpdateScenario(ctx));
      if (part('agent-footprint'))
        await attempt('agent-footprint', () => agentFootprintScenario(ctx));
      // Three boards and a PostgreSQL: only when asked for (`--only cluster`).
      if (options.only?.has('cluster') === true)
        await attempt('cluster', () => clusterScenario(ctx));
    }
  } finally {
    clearTimeout(watchdog);
    killEverything();
    rmSync(tmp, { recursive: true, force: true });
  }
  return report(ctx, started, machine);
}

/** Prints the table and what the check found; the exit code. */
function report(ctx: BenchContext, started: number, machine: string): number {
  const seconds = (Date.now() - started) / 1000;
  const { options } = ctx;
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  process.stdout.write(`\n${renderTable(ctx.rows)}\n\n`);
  process.stdout.write(`${command}: ${options.mode} run, ${seconds.toFixed(0)} s; ${machine}\n`);
  process.stdout.write(
    `load average (1 min) before the run ${loadAtStart.toFixed(1)}, after ${(loadavg()[0] ?? Number.NaN).toFixed(1)} ` +
      '(the bench itself adds about 2; more means other work shared the cores)\n',
  );
  const missing = missingFigures(ctx.rows);
  const expected = expectedRows(options);
  const problems = [
    ...ctx.problems,
    ...missing.map((what) => `no figure for: ${what}`),
    ...(ctx.rows.length < expected ? [`${ctx.rows.length} of ${expected} figures produced`] : []),
  ];
  for (const p of problems) process.stdout.write(`problem: ${p}\n`);
  if (options.check) {
    process.stdout.write(
      problems.length === 0
        ? 'check: every figure produced, board answers as expected\n'
        : 'check: FAILED\n',
    );
    return problems.length === 0 ? 0 : 1;
  }
  return ctx.rows.length > 0 && missing.length === 0 ? 0 : 1;
}

function expectedRows(options: BenchOptions): number {
  if (options.soak) return 1;
  // fleet: small 6 (sweep, GET throughput and p99, relay median and p99, RSS), large 6 (sweep,
  // cold sweep, /metrics p99, p99 while scraped, RSS, p99 while sweeping); reports 8 (first
  // announce, GET without reports, capacity, GET during the flood, 3 sustained, RSS, RSS at rest
  // per 1,000 machines, the empty board at rest beside bare); tls 3
  // (p99 over TLS, handshakes per minute, RSS); notify 4; history 9 (write,
  // longest block, 3 queries, uptime, 2 disk, the real board's p99); store 4 (history write,
  // journal append, disk, the real board's p99 on PostgreSQL); gpu 2 (the agent's overview p99
  // with a slow nvidia-smi, its calls per interval); inbox 3 (GET /api/sessions p99, a bell to
  // its Web Push, a bell to its inbox row painted); machines-now 11 (RSS at rest, the view's size,
  // GET /api/board p99, report capacity, bare's capacity with the same bodies; the agent's CPU
  // and RSS with many and with 0 containers, its container read and its list call);
  // labels 6 (RSS at rest per 1,000 machines, GET ?selector= beside the whole view, report
  // capacity and bare's with the same bodies, sweep time and CPU per sweep; with ÷ without);
  // people 5 (GET /api/board and /api/journal with an unscoped and a scoped viewer's session,
  // each ÷ the board token; the sign-in round trip);
  // checks 5 (report capacity with runners' results ÷ without, and under a stress of results;
  // real agents running checks: RSS
  // ÷ an idle agent, CPU beside a bare fetch loop; a target down → its webhook).
  // agent-update 1 (every announcing agent updated from the board, beside plain downloads).
  // agent-footprint 10 (the .mjs and the binary each: RSS at rest, RSS and CPU under load, start;
  // the binary's size raw and gzipped).
  const rows = {
    fleet: 12,
    reports: 10,
    tls: 3,
    notify: 4,
    history: 11,
    'history-reads': 2,
    store: 4,
    gpu: 2,
    inbox: 3,
    'machines-now': 11,
    labels: 6,
    people: 5,
    checks: 5,
    'agent-update': 1,
    'agent-footprint': 10,
  };
  // cluster 7 (CPU, polls steady, lag, failover, polls after, lost, notifications): asked for only.
  const cluster = options.only?.has('cluster') === true ? 7 : 0;
  return (
    cluster +
    Object.entries(rows).reduce(
      (sum, [name, n]) =>
        sum +
        (runsPart(options, name) && !(name === 'history-reads' && runsPart(options, 'history'))
          ? n
          : 0),
      0,
    )
  );
}

/** Whether this run includes scenario `name` (all of them unless `--only` names some). */
function runsPart(options: BenchOptions, name: string): boolean {
  return options.only === null || options.only.has(name);
}

function describeMachine(wrkVersion: string): string {
  const list = cpus();
  const model = list[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  const gib = (totalmem() / 1024 ** 3).toFixed(0);
  return `machine: ${list.length} cores (${model}), ${gib} GiB, Linux ${release()}, Node ${process.version}, ${wrkVersion.replace(/ Copyright.*/, '')}; open files limit ${fdLimit()}`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    killEverything();
    process.exit(1);
  },
);
