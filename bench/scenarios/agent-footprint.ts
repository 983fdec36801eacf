import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { request } from 'undici';
import { stringify } from 'yaml';
import { agentBinaryBuilt, agentBinaryIn } from '../../harness/agent-binary.js';
import { startProcess } from '../../harness/processes.js';
import { token, writeBoardConfig } from '../board-kit.js';
import { cpuSeconds, type Program, ROOT } from '../processes.js';
import { median, sleep } from '../stats.js';
import { NOT_BUILT, type Row } from '../table.js';
import { type BenchContext, launchBoard, RssSampler, scenarioDir } from './context.js';

/** DESIGN.md 13: the resting agent's RSS at most this times a bare node:http server's. */
const GOAL = 1.25;
/** The Node the agent binary is built from (scripts/node-binaries.json), cached by the build. */
const NODE_26 = `${ROOT}node_modules/.cache/panoptes-node/26.12.1/linux-x64/node`;
const AGENT_FILE = `${ROOT}dist/agent-file/panoptes-agent.mjs`;
/** The agent's V8 flags, as its systemd unit passes them (src/agent/v8-flags.ts). */
const V8_FLAGS = JSON.parse(readFileSync(`${ROOT}src/agent/v8-flags.json`, 'utf8')) as string[];
/** The load: GET /api/overview this many times a second, as a few boards polling would. */
const LOAD_PER_S = 10;

/** One program measured: how it is started and what it measured. */
interface Subject {
  label: string;
  command: string;
  args: (configFile: string) => string[];
  /** Sends the agent token. */
  agent: boolean;
  startMs: number[];
  restMb: number[];
  loadMb: number[];
  cpuPercent: number[];
}

/**
 * The agent's footprint (DESIGN.md 13): the .mjs on this Node with the V8 flags (as its systemd
 * unit runs it) and the agent binary, each beside a bare node:http server on the same Node;
 * all started in turn, in alternating order each round. At rest (idle ~10 s, reporting to a
 * board every 10 s, no container engine), then under 10 GET /api/overview a second.
 */
export async function agentFootprintScenario(ctx: BenchContext): Promise<void> {
  const quick = ctx.options.mode === 'quick';
  const rounds = quick ? 1 : 5;
  // At rest: the median of the samples over this window after the start (a report comes
  // every 10 s; one sample could land on it).
  const restFromS = quick ? 7 : 8;
  const restS = quick ? 9 : 12;
  const loadS = quick ? 4 : 15;
  const dir = scenarioDir(ctx, 'agent-footprint');
  const registration = token();
  const agentToken = token();
  const board = await launchBoard(
    ctx,
    writeBoardConfig(dir, { board_token: token(), registration_token: registration }),
    'agent-footprint',
  );
  const node26 = nodeBinary26(ctx);
  // The build keeps the binary gzipped: unzipped into the scenario's directory to run it.
  const BINARY = agentBinaryBuilt('linux-x64') ? await agentBinaryIn('linux-x64', dir) : null;
  const overviewFile = join(dir, 'overview.json');
  const started: Program[] = [];
  try {
    // The bare servers answer every GET with the first agent's overview, once it gave one.
    writeFileSync(overviewFile, '{}');
    let overviewWritten = false;
    const agentArgs = (configFile: string) => [
      '--config',
      configFile,
      '--port',
      '0',
      '--host',
      '127.0.0.1',
    ];
    const bareArgs = () => [`${ROOT}dist/bench/bare.js`, '--bytes', overviewFile];
    const subject = (
      label: string,
      command: string,
      args: (configFile: string) => string[],
      agent: boolean,
    ): Subject => ({
      label,
      command,
      args,
      agent,
      startMs: [],
      restMb: [],
      loadMb: [],
      cpuPercent: [],
    });
    const mjs = subject(
      `agent .mjs, Node ${process.versions.node}, ${V8_FLAGS.join(' ')}`,
      process.execPath,
      (file) => [...V8_FLAGS, AGENT_FILE, ...agentArgs(file)],
      true,
    );
    const bare20 = subject(
      `bare node:http, Node ${process.versions.node}`,
      process.execPath,
      bareArgs,
      false,
    );
    const binary = BINARY === null ? null : subject('agent binary', BINARY, agentArgs, true);
    const bare26 =
      node26 === null ? null : subject('bare node:http, Node 26', node26, bareArgs, false);
    const subjects = [mjs, bare20, binary, bare26].filter((s): s is Subject => s !== null);

    // Gzipping ~300 MB takes seconds: done while the programs rest.
    const sizes = sizeRows(BINARY, node26);
    let n = 0;
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? subjects : [...subjects].reverse();
      const running: { s: Subject; p: Program }[] = [];
      for (const s of order) {
        n += 1;
        const file = join(dir, `agent-${n}.yaml`);
        writeFileSync(
          file,
          stringify({
            name: `footprint-${n}`,
            token: agentToken,
            data_dir: join(dir, `data-${n}`),
            report: { board: board.url, token: registration, interval: 10 },
          }),
        );
        const t0 = performance.now();
        const p = await startProcess(s.label, s.command, s.args(file), {
          // No container engine: DOCKER_HOST names a socket that is not there.
          env: { ...process.env, DOCKER_HOST: `unix://${join(dir, 'no-engine.sock')}` },
          timeoutMs: 30_000,
          keepLines: 50,
        });
        started.push(p);
        const text = await overview(p.url, agentToken);
        s.startMs.push(performance.now() - t0);
        if (s.agent && !overviewWritten) {
          writeFileSync(overviewFile, text);
          overviewWritten = true;
        }
        running.push({ s, p });
      }
      await sleep(restFromS * 1000);
      const resting = running.map(({ p }) => new RssSampler(p.pid, 250));
      await sleep((restS - restFromS) * 1000);
      running.forEach(({ s }, i) => {
        const sampler = resting[i] as RssSampler;
        sampler.stop();
        s.restMb.push(median(sampler.samples.map((x) => x.mb)));
      });
      // The load on all at once: 10 a second each is little for 2 cores.
      const samplers = running.map(({ p }) => new RssSampler(p.pid, 250));
      const cpu0 = running.map(({ p }) => cpuSeconds(p.pid));
      const t0 = performance.now();
      await Promise.all(running.map(({ p }) => steadyGets(p.url, agentToken, loadS)));
      const elapsedS = (performance.now() - t0) / 1000;
      running.forEach(({ s, p }, i) => {
        s.cpuPercent.push(((cpuSeconds(p.pid) - (cpu0[i] ?? 0)) / elapsedS) * 100);
        const sampler = samplers[i] as RssSampler;
        sampler.sample();
        sampler.stop();
        s.loadMb.push(sampler.peakMb);
      });
      await Promise.all(running.map(({ p }) => p.stop()));
      started.length = 0;
    }
    ctx.log(
      `agent-footprint: at rest ${subjects.map((s) => `${s.label} ${s.restMb.map((v) => v.toFixed(1)).join('/')} MB`).join('; ')}`,
    );
    const rows = footprintRows(mjs, bare20, binary, bare26, node26, `${restFromS}-${restS}`, loadS);
    ctx.rows.push(...rows);
    ctx.rows.push(...(await sizes));
  } finally {
    await Promise.all(started.map((p) => p.stop()));
    await board.stop();
  }
}

function footprintRows(
  mjs: Subject,
  bare20: Subject,
  binary: Subject | null,
  bare26: Subject | null,
  node26: string | null,
  restS: string,
  loadS: number,
): Row[] {
  const rows: Row[] = [];
  const pairs: [string, Subject | null, Subject | null, string][] = [
    ['agent .mjs (V8 flags)', mjs, bare20, `bare Node ${process.versions.node}`],
    ['agent binary', binary, bare26, 'bare Node 26'],
  ];
  for (const [name, agent, bare, bareLabel] of pairs) {
    if (agent === null || bare === null) {
      const why = agent === null ? 'not built' : `no Node 26 (${node26 ?? 'none found'})`;
      for (const what of [
        'RSS at rest',
        'RSS under load',
        'CPU under load',
        'start to first answer',
      ])
        rows.push(absent(`${name}: ${what}: ${why}`));
      continue;
    }
    const rest = median(agent.restMb);
    const bareRest = median(bare.restMb);
    rows.push({
      what: `${name}: RSS at rest (median of ${restS} s after starting; reports every 10 s), median of ${agent.restMb.length} start${agent.restMb.length === 1 ? '' : 's'}`,
      board: rest,
      unit: 'MB',
      baselineLabel: bareLabel,
      baseline: bareRest,
      ratio: rest / bareRest,
      goal: `≤ ${GOAL}×`,
      met: rest / bareRest <= GOAL,
    });
    const load = median(agent.loadMb);
    const bareLoad = median(bare.loadMb);
    rows.push({
      what: `${name}: peak RSS under ${LOAD_PER_S} GET /api/overview/s for ${loadS} s`,
      board: load,
      unit: 'MB',
      baselineLabel: bareLabel,
      baseline: bareLoad,
      ratio: load / bareLoad,
      goal: '',
      met: null,
    });
    const cpu = median(agent.cpuPercent);
    const bareCpu = median(bare.cpuPercent);
    rows.push({
      what: `${name}: CPU under ${LOAD_PER_S} GET /api/overview/s, % of one core`,
      board: cpu,
      unit: '%',
      baselineLabel: bareLabel,
      baseline: bareCpu,
      ratio: cpu / bareCpu,
      goal: '',
      met: null,
    });
    const start = median(agent.startMs);
    const bareStart = median(bare.startMs);
    rows.push({
      what: `${name}: start to its first /api/overview answer`,
      board: start,
      unit: 'ms',
      baselineLabel: bareLabel,
      baseline: bareStart,
      ratio: start / bareStart,
      goal: '',
      met: null,
    });
  }
  return rows;
}

/** The binary's size, raw and gzipped, beside the Node binary it is made from. */
async function sizeRows(BINARY: string | null, node26: string | null): Promise<Row[]> {
  if (BINARY === null || node26 === null) {
    const why = BINARY !== null ? 'no Node 26 found' : 'not built';
    return [absent(`agent binary: size: ${why}`), absent(`agent binary: size gzipped: ${why}`)];
  }
  const mb = (bytes: number) => bytes / 1e6;
  const raw = mb(statSync(BINARY).size);
  const nodeRaw = mb(statSync(node26).size);
  const [gz, nodeGz] = await Promise.all([gzipSize(BINARY), gzipSize(node26)]);
  return [
    {
      what: 'agent binary: size',
      board: raw,
      unit: 'MB',
      baselineLabel: 'its Node',
      baseline: nodeRaw,
      ratio: raw / nodeRaw,
      goal: '',
      met: null,
    },
    {
      what: 'agent binary: size gzipped (-6)',
      board: mb(gz),
      unit: 'MB',
      baselineLabel: 'its Node',
      baseline: mb(nodeGz),
      ratio: gz / nodeGz,
      goal: '',
      met: null,
    },
  ];
}

function absent(what: string): Row {
  return {
    what,
    board: Number.NaN,
    unit: '',
    baselineLabel: '',
    baseline: Number.NaN,
    ratio: Number.NaN,
    goal: NOT_BUILT,
    met: null,
  };
}

async function gzipSize(file: string): Promise<number> {
  let size = 0;
  const gzip = createGzip({ level: 6 });
  gzip.on('data', (chunk: Buffer) => {
    size += chunk.length;
  });
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  createReadStream(file).pipe(gzip);
  await done;
  return size;
}

/** The Node 26 the build caches, else npm's node@26 (npx prints its binary's path). */
function nodeBinary26(ctx: BenchContext): string | null {
  if (existsSync(NODE_26)) return NODE_26;
  try {
    const path = execFileSync('npx', ['-y', 'node@26', '-p', 'process.execPath'], {
      encoding: 'utf8',
      timeout: 120_000,
    }).trim();
    return existsSync(path) ? path : null;
  } catch (error) {
    ctx.log(
      `agent-footprint: no Node 26: ${error instanceof Error ? error.message : String(error)}`,
    );
    return null;
  }
}

async function overview(url: string, agentToken: string): Promise<string> {
  const answer = await request(`${url}/api/overview`, {
    headers: { authorization: `Bearer ${agentToken}` },
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 200) throw new Error(`GET ${url}/api/overview: ${answer.statusCode}`);
  return text;
}

/** GET /api/overview LOAD_PER_S times a second for `seconds`, on a schedule, not back to back. */
async function steadyGets(url: string, agentToken: string, seconds: number): Promise<void> {
  const t0 = performance.now();
  const total = seconds * LOAD_PER_S;
  for (let i = 0; i < total; i += 1) {
    const due = t0 + (i * 1000) / LOAD_PER_S;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    await overview(url, agentToken);
  }
}
