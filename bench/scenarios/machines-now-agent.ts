import { execFile } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type PodmanHarness, podmanMissing, startPodman } from '../../harness/podman.js';
import type * as ClockModule from '../../src/agent/domain/clock.js';
import type * as WatchModule from '../../src/agent/domain/container-watch.js';
import type * as ContainersModule from '../../src/agent/domain/containers.js';
import type * as EngineModule from '../../src/agent/io/container-engine.js';
import { token } from '../board-kit.js';
import { cpuSeconds, type Program, ROOT, startAgent } from '../processes.js';
import { median, nowMs, sleep } from '../stats.js';
import { type BenchContext, RssSampler } from './context.js';

const run = promisify(execFile);

/** The agents' sample_interval, seconds: their containers are read this often. */
const INTERVAL_S = 2;
/** `podman run`s at once while the containers are made: setup stays short, the CPUs not swamped. */
const START_CONCURRENCY = 8;
/** Generous: the timed reads are whole ones, never cut short by a time-out. */
const READ_TIMEOUT_MS = 120_000;

/** The agents, alike but for their container engine. */
interface Agents {
  /** No engine socket to be found (DOCKER_HOST names a path where nothing is). */
  off: Program;
  /** Another one alike: how far apart alike agents land. */
  offAgain: Program;
  /** An engine with no container. */
  none: Program;
  /** An engine with the run's idle containers (machinesNowContainers). */
  many: Program;
}

interface Overview {
  containers?: { state: string; cpu: number | null }[];
  containers_error?: string;
}

/**
 * The agent's side of DESIGN.md 11's containers: real agents over the same window (their CPU
 * per interval and RSS; two with containers off, one on an engine with none, one on many idle
 * containers in a private Podman), then the agent's own container read timed against `podman ps` on the same
 * socket.
 */
export async function agentSide(ctx: BenchContext): Promise<void> {
  const missing = podmanMissing();
  if (missing !== null) {
    ctx.problems.push(`machines-now: the agent's rows need Podman: ${missing}`);
    return;
  }
  const n = ctx.options.machinesNowContainers;
  const engines: PodmanHarness[] = [];
  const started: Program[] = [];
  try {
    const made = await Promise.allSettled([startPodman(), startPodman()]);
    for (const m of made) if (m.status === 'fulfilled') engines.push(m.value);
    for (const m of made) if (m.status === 'rejected') throw m.reason;
    const [full, empty] = engines as [PodmanHarness, PodmanHarness];
    const setupStart = Date.now();
    await runIdle(full, n);
    ctx.log(`machines-now: ${n} idle containers started in ${secs(Date.now() - setupStart)} s`);

    const agentToken = token();
    const start = async (name: string, socket: string | null, env: NodeJS.ProcessEnv = {}) => {
      const agent = await startNowAgent(ctx, name, agentToken, socket, env);
      started.push(agent);
      return agent;
    };
    // DOCKER_HOST is looked at before the usual sockets: these agents find no engine at all.
    const noEngine = { DOCKER_HOST: `unix://${join(ctx.tmp, 'no-engine.sock')}` };
    const agents: Agents = {
      off: await start('agent-containers-off', null, noEngine),
      offAgain: await start('agent-containers-off-2', null, noEngine),
      none: await start('agent-0-containers', empty.socket),
      many: await start(`agent-${n}-containers`, full.socket),
    };
    const overview = overviewOf(agentToken);
    await measureAgents(ctx, agents, n, overview);
    await Promise.all(started.map((a) => a.stop()));
    started.length = 0;
    // With the agents gone the engine serves the timed reads alone.
    await readTimes(ctx, full.socket, n);
  } finally {
    await Promise.all(started.map((a) => a.stop()));
    await Promise.all(engines.map((e) => e.close()));
  }
}

/** Runs `n` busybox `sleep`s (the harness's image, no network, its ulimits), a few at a time. */
async function runIdle(podman: PodmanHarness, n: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next;
      next += 1;
      await podman.run(`idle-${String(i).padStart(3, '0')}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, n) }, worker));
}

function startNowAgent(
  ctx: BenchContext,
  name: string,
  agentToken: string,
  socket: string | null,
  env: NodeJS.ProcessEnv,
): Promise<Program> {
  return startAgent(
    ctx.tmp,
    {
      name,
      token: agentToken,
      data_dir: join(ctx.tmp, `${name}-data`),
      sample_interval: INTERVAL_S,
      ...(socket === null ? {} : { containers: { socket } }),
    },
    env,
  );
}

function overviewOf(agentToken: string): (agent: Program) => Promise<Overview> {
  const headers = { authorization: `Bearer ${agentToken}` };
  return async (agent) =>
    (await (await fetch(`${agent.url}/api/overview`, { headers })).json()) as Overview;
}

/** What is wrong with the agents' overviews (empty: each lists what its engine holds). */
async function wrongLists(
  agents: Agents,
  n: number,
  overview: (agent: Program) => Promise<Overview>,
): Promise<string[]> {
  const [off, offAgain, none, many] = await Promise.all(
    [agents.off, agents.offAgain, agents.none, agents.many].map(overview),
  );
  const wrong: string[] = [];
  for (const o of [off, offAgain])
    if (o?.containers !== undefined || o?.containers_error !== undefined)
      wrong.push('an agent with containers off shows containers');
  if (none?.containers?.length !== 0)
    wrong.push(
      `the agent on the empty engine: ${none?.containers_error ?? `${none?.containers?.length ?? 'no'} containers`}`,
    );
  const running = many?.containers?.filter((c) => c.state === 'running').length;
  if (many?.containers?.length !== n || running !== n)
    wrong.push(
      `the agent on ${n} containers: ${many?.containers_error ?? `${many?.containers?.length ?? 'no'} listed, ${running ?? 0} running`}`,
    );
  return wrong;
}

/** One agent's figures over the window: CPU per interval (ms) and peak RSS (MB). */
interface Use {
  cpuMs: number;
  rssMb: number;
}

/**
 * The agents over one window, once each lists what its engine holds and a few reads more have
 * passed: CPU from /proc/PID/stat at both ends, RSS sampled every 250 ms (the peak).
 */
async function measureAgents(
  ctx: BenchContext,
  agents: Agents,
  n: number,
  overview: (agent: Program) => Promise<Overview>,
): Promise<void> {
  const quick = ctx.options.mode === 'quick';
  const startedAt = Date.now();
  let wrong = await wrongLists(agents, n, overview);
  while (wrong.length > 0 && Date.now() < startedAt + 60_000) {
    await sleep(500);
    wrong = await wrongLists(agents, n, overview);
  }
  // Past the first reads; in a full run, past the first minute too, in which V8 sizes the heap
  // of the agent reading many containers to its reads' garbage (its live heap does not grow).
  await sleep(Math.max(2 * INTERVAL_S * 1000, startedAt + (quick ? 0 : 60_000) - Date.now()));
  const ageS = Math.round((Date.now() - startedAt) / 1000);

  const windowS = quick ? 8 : 20;
  const list = [agents.off, agents.offAgain, agents.none, agents.many];
  const cpuBefore = list.map((a) => cpuSeconds(a.pid));
  const samplers = list.map((a) => new RssSampler(a.pid, 250));
  const from = nowMs();
  await sleep(windowS * 1000);
  const cpuAfter = list.map((a) => cpuSeconds(a.pid));
  const intervals = (nowMs() - from) / 1000 / INTERVAL_S;
  const [off, offAgain, none, many] = samplers.map((s, i): Use => {
    s.sample();
    s.stop();
    const cpuMs = (((cpuAfter[i] ?? 0) - (cpuBefore[i] ?? 0)) * 1000) / intervals;
    return { cpuMs, rssMb: s.peakMb };
  }) as [Use, Use, Use, Use];
  // Two alike agents with containers off: how far apart alike agents land (their garbage
  // collection settles differently), and the baseline is their mean.
  const base: Use = {
    cpuMs: (off.cpuMs + offAgain.cpuMs) / 2,
    rssMb: (off.rssMb + offAgain.rssMb) / 2,
  };

  // --check: each lists what its engine holds, after the window too.
  for (const w of await wrongLists(agents, n, overview)) ctx.problems.push(`machines-now: ${w}`);
  const withCpu = (await overview(agents.many)).containers?.filter((c) => c.cpu !== null).length;

  const window = `sample_interval ${INTERVAL_S} s; the four agents over the same ${windowS} s, from ${ageS} s after their start`;
  const offText = (f: (u: Use) => number, unit: string) =>
    `off: the mean of two alike agents, ${f(off).toFixed(1)} and ${f(offAgain).toFixed(1)} ${unit}`;
  const cpuText = offText((u) => u.cpuMs, 'ms');
  const rssText = offText((u) => u.rssMb, 'MB');
  const row = (what: string, figure: number, baseline: number, goal: number | null) =>
    ctx.rows.push({
      what,
      board: figure,
      unit: what.includes('RSS') ? 'MB' : 'ms',
      baselineLabel: 'containers off',
      baseline,
      ratio: figure / baseline,
      goal: goal === null ? '' : `≤ ${goal} × off`,
      met: goal === null ? null : figure <= goal * baseline,
    });
  row(
    `(no goal) agent CPU per interval, ${n} idle containers (${window}; ${cpuText}; ${withCpu ?? 0} of ${n} with a CPU figure in its last overview)`,
    many.cpuMs,
    base.cpuMs,
    null,
  );
  row(
    `(no goal) agent CPU per interval, containers on with 0 containers (the same window)`,
    none.cpuMs,
    base.cpuMs,
    null,
  );
  // 200 containers' figures are a few hundred KB: the rest is garbage of the engine's answers.
  row(
    `agent RSS, ${n} idle containers (peak, ${window}; ${rssText})`,
    many.rssMb,
    base.rssMb,
    1.25,
  );
  row(
    `agent RSS, containers on with 0 containers (peak, the same window)`,
    none.rssMb,
    base.rssMb,
    1.1,
  );
}

/**
 * The agent's own container read (its modules from dist: the list, a stats sample of each running
 * one, an inspect of those the list shows changed) and its list call alone, timed in rounds
 * alternating with `podman --remote ps --all --format json` through the same socket; the median
 * of each.
 */
async function readTimes(ctx: BenchContext, socket: string, n: number): Promise<void> {
  const load = <T>(path: string) =>
    import(pathToFileURL(join(ROOT, 'dist/agent', path)).href) as Promise<T>;
  const { dockerEngine } = await load<typeof EngineModule>('io/container-engine.js');
  const { ContainerWatch, ENGINE_CONCURRENCY, REINSPECT_AFTER } = await load<typeof WatchModule>(
    'domain/container-watch.js',
  );
  const { parseList } = await load<typeof ContainersModule>('domain/containers.js');
  const { systemClock } = await load<typeof ClockModule>('domain/clock.js');
  const engine = dockerEngine([socket]);
  const watch = new ContainerWatch(engine, systemClock, () => cpus().length);
  const rounds = ctx.options.mode === 'quick' ? 5 : 9;
  const times = {
    read: [] as number[],
    readCpu: [] as number[],
    list: [] as number[],
    ps: [] as number[],
  };
  const wrong = new Set<string>();
  try {
    // One of each first: the engine's connections made, the podman binary read from disk.
    for (let r = -1; r < rounds; r++) {
      let t = nowMs();
      const cpu = process.cpuUsage();
      const read = await watch.read(READ_TIMEOUT_MS);
      const readMs = nowMs() - t;
      // This process does nothing else meanwhile: its CPU is the read's.
      const { user, system } = process.cpuUsage(cpu);
      if (read.kind !== 'ok' || read.value.length !== n)
        wrong.add(
          `the agent's read: ${read.kind === 'ok' ? `${read.value.length} containers` : read.kind}`,
        );
      t = nowMs();
      const listed = await engine.list(READ_TIMEOUT_MS);
      const count = listed.ok ? parseList(listed.value).length : null;
      const listMs = nowMs() - t;
      if (count !== n)
        wrong.add(`the agent's list: ${listed.ok ? `${count} containers` : listed.reason}`);
      t = nowMs();
      const { stdout } = await run(
        'podman',
        ['--remote', '--url', `unix://${socket}`, 'ps', '--all', '--format', 'json'],
        { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      );
      const psMs = nowMs() - t;
      const ps = (JSON.parse(stdout) as unknown[]).length;
      if (ps !== n) wrong.add(`podman ps: ${ps} containers`);
      if (r < 0) continue;
      times.read.push(readMs);
      times.readCpu.push((user + system) / 1000);
      times.list.push(listMs);
      times.ps.push(psMs);
    }
  } finally {
    await engine.close();
  }
  for (const w of wrong) ctx.problems.push(`machines-now: ${w}, not ${n}`);
  const [read, readCpu, list, ps] = [times.read, times.readCpu, times.list, times.ps].map(
    median,
  ) as [number, number, number, number];
  const psText = `podman --remote ps --all --format json on the same socket, its process included`;
  ctx.rows.push({
    what: `(no goal) container read, ${n} idle containers: the agent's own read (list, ${n} stats and the inspects the list asks for, each container's again every ${REINSPECT_AFTER} reads, ${ENGINE_CONCURRENCY} at a time; its CPU ${readCpu.toFixed(0)} ms), median of ${rounds} alternating with ${psText}`,
    board: read,
    unit: 'ms',
    baselineLabel: 'podman ps',
    baseline: ps,
    ratio: read / ps,
    goal: '',
    met: null,
  });
  ctx.rows.push({
    what: `(no goal) the agent's list call alone (GET /containers/json?all=true, parsed), ${n} containers, in the same rounds`,
    board: list,
    unit: 'ms',
    baselineLabel: 'podman ps',
    baseline: ps,
    ratio: list / ps,
    goal: '',
    met: null,
  });
}

function secs(ms: number): string {
  return (ms / 1000).toFixed(1);
}
