import { resultsJson } from './checks.js';
import { labelsJson, machineLabels } from './labels.js';
import { machineNow, machineNowJson } from './machine-now.js';
import { ANNOUNCER_BLOCK, loopbackAddress, machineName } from './protocol.js';

/**
 * A realistic agent overview (about 2 KB, the shape of the agent's GET /api/overview), different
 * at every call: time, uptime, load, CPU use, free memory and disk, and now and then a bell.
 */

const SERVICES = [
  { name: 'backup', kind: 'command', actions: ['start', 'stop'], board: ['start'] },
  { name: 'build-runner', kind: 'process', actions: ['start', 'stop'], board: ['start', 'stop'] },
  { name: 'gpu-exporter', kind: 'process', actions: ['start', 'stop'], board: [] },
  { name: 'nightly-sync', kind: 'command', actions: ['start'], board: ['start'] },
  { name: 'jupyter', kind: 'process', actions: ['start', 'stop'], board: ['stop'] },
] as const;

const BELL_TEXTS = [
  'Refactored the sweep scheduler; all 214 tests pass. Waiting for review of the migration plan before touching the schema.',
  'Build finished: 3 warnings in src/render/pipeline.ts (unused imports). Artifacts uploaded to the cache bucket.',
  'Need a decision: the flaky test in test/net/retry.test.ts fails 1 in 40 runs on this box; skip it or dig in?',
];

const GIB = 1024 ** 3;

/** Per-machine constants, derived from its index so every run builds the same fleet. */
export interface MachineShape {
  name: string;
  index: number;
  /** It also reports DESIGN.md 11's fields (containers, processes, net, temps, smart). */
  machineNow?: boolean;
  /** It carries 8 labels (bench/fleet/labels.ts). */
  labels?: boolean;
}

/** What changes from one answer to the next, worked out once for both forms below. */
function moment(shape: MachineShape, seq: number) {
  const i = shape.index;
  const cpus = [8, 16, 32, 64][i % 4] ?? 8;
  const memTotal = cpus * 4 * GIB;
  const wave = Math.sin((seq + i) / 3);
  const load1 = Math.round(cpus * (0.3 + 0.25 * wave) * 100) / 100;
  const memFree = Math.round(memTotal * (0.35 + 0.2 * wave));
  const disks = [
    { path: '/', total: 512 * GIB, free: Math.round(512 * GIB * (0.4 + 0.01 * wave)) },
    { path: '/var/lib/docker', total: 1024 * GIB, free: Math.round(1024 * GIB * 0.6) },
    { path: '/scratch', total: 2048 * GIB, free: Math.round(2048 * GIB * (0.2 + 0.1 * wave)) },
  ];
  return {
    i,
    cpus,
    memTotal,
    memFree,
    load: [load1, Math.round(load1 * 90) / 100, Math.round(load1 * 80) / 100],
    cpuUse: Math.round((0.3 + 0.25 * wave) * 1000) / 1000,
    disks,
    running: (seq + i) % 7 !== 0,
    bells: (i + seq) % 3,
    arch: i % 5 === 0 ? 'arm64' : 'x64',
    uptime: 86_400 * (1 + (i % 30)) + seq * 5,
  };
}

/** The overview of machine `shape` at its `seq`-th answer, as an object. */
export function overview(shape: MachineShape, seq: number, now: number): Record<string, unknown> {
  const m = moment(shape, seq);
  const services = SERVICES.map((s, k) => ({
    name: s.name,
    kind: s.kind,
    state: k === 1 ? (m.running ? 'running' : 'stopped') : k === 2 ? 'running' : 'stopped',
    actions: [...s.actions],
    board: [...s.board],
    busy: false,
    ...(s.kind === 'process'
      ? {
          last_exit:
            k === 1 && !m.running
              ? { code: 0, signal: null, at: new Date(now - 60_000).toISOString() }
              : null,
        }
      : {}),
  }));
  const sessions = BELL_TEXTS.slice(0, m.bells).map((text, k) => ({
    session: `claude-${(m.i * 7 + k) % 1000}`,
    why: k === 0 ? 'attention' : 'finished',
    text,
    at: new Date(now - (k + 1) * 90_000).toISOString(),
  }));
  return {
    name: shape.name,
    hostname: `${shape.name}.lab.example.net`,
    platform: 'linux',
    arch: m.arch,
    uptime_s: m.uptime,
    load: m.load,
    cpus: m.cpus,
    cpu_use: m.cpuUse,
    memory: { total: m.memTotal, free: m.memFree, used: m.memTotal - m.memFree },
    disks: m.disks.map((d) => ({ ...d, used: d.total - d.free })),
    services,
    sessions,
    version: '0.1.0',
    time: new Date(now).toISOString(),
    ...(shape.machineNow === true ? machineNow(shape.index, seq) : {}),
    ...(shape.labels === true ? { labels: machineLabels(shape.index) } : {}),
  };
}

/** The fixed JSON of each service, with a hole for its state and last exit. */
const SERVICE_JSON = SERVICES.map((s) => ({
  head: `{"name":${JSON.stringify(s.name)},"kind":${JSON.stringify(s.kind)},"state":"`,
  rest: `,"actions":${JSON.stringify(s.actions)},"board":${JSON.stringify(s.board)},"busy":false`,
  process: s.kind === 'process',
}));
const BELL_JSON = BELL_TEXTS.map((text) => JSON.stringify(text));

/**
 * The same overview as JSON text, exactly `JSON.stringify(overview(...))` (a test holds them
 * together), written out directly: the simulator shares the board's cores, and building and
 * serialising the object would be a third of its CPU.
 */
export function overviewJson(shape: MachineShape, seq: number, now: number): string {
  const m = moment(shape, seq);
  let services = '';
  for (let k = 0; k < SERVICE_JSON.length; k++) {
    const s = SERVICE_JSON[k] as (typeof SERVICE_JSON)[number];
    const state = k === 1 ? (m.running ? 'running' : 'stopped') : k === 2 ? 'running' : 'stopped';
    let exit = '';
    if (s.process)
      exit =
        k === 1 && !m.running
          ? `,"last_exit":{"code":0,"signal":null,"at":"${new Date(now - 60_000).toISOString()}"}`
          : ',"last_exit":null';
    services += `${k === 0 ? '' : ','}${s.head}${state}"${s.rest}${exit}}`;
  }
  let sessions = '';
  for (let k = 0; k < m.bells; k++) {
    const at = new Date(now - (k + 1) * 90_000).toISOString();
    sessions +=
      `${k === 0 ? '' : ','}{"session":"claude-${(m.i * 7 + k) % 1000}",` +
      `"why":"${k === 0 ? 'attention' : 'finished'}","text":${BELL_JSON[k]},"at":"${at}"}`;
  }
  const disks = m.disks
    .map(
      (d) => `{"path":"${d.path}","total":${d.total},"free":${d.free},"used":${d.total - d.free}}`,
    )
    .join(',');
  return (
    `{"name":"${shape.name}","hostname":"${shape.name}.lab.example.net","platform":"linux",` +
    `"arch":"${m.arch}","uptime_s":${m.uptime},"load":[${m.load.join(',')}],"cpus":${m.cpus},` +
    `"cpu_use":${m.cpuUse},"memory":{"total":${m.memTotal},"free":${m.memFree},` +
    `"used":${m.memTotal - m.memFree}},"disks":[${disks}],"services":[${services}],` +
    `"sessions":[${sessions}],"version":"0.1.0","time":"${new Date(now).toISOString()}"` +
    `${shape.machineNow === true ? `,${machineNowJson(shape.index, seq)}` : ''}` +
    `${shape.labels === true ? `,${labelsJson(shape.index)}` : ''}}`
  );
}

/** The fixed sessions of each announcing machine in the inbox scenario. */
export interface InboxSessions {
  perMachine: number;
  /** ms since the epoch: the newest bell of the fleet; the others are older, a second apart. */
  newestAt: number;
}

/** Why the sessions of the inbox scenario rang, in turn: two of three want a person. */
const INBOX_WHYS = ['attention', 'error', 'finished'] as const;

/**
 * The sessions of announcing machine `index` in the inbox scenario: `perMachine` of them, their
 * `why` taking turns over attention, error and finished across the fleet, each bell a second
 * older than the one before (machine by machine) from `newestAt`, the same at every report (so
 * no bell is new after the first report).
 */
export function inboxSessions(
  index: number,
  sessions: InboxSessions,
): { session: string; why: string; text: string; at: string }[] {
  return Array.from({ length: sessions.perMachine }, (_, k) => {
    const n = index * sessions.perMachine + k;
    return {
      session: `claude-${k + 1}`,
      why: INBOX_WHYS[n % INBOX_WHYS.length] as string,
      text: BELL_TEXTS[k % BELL_TEXTS.length] as string,
      at: new Date(sessions.newestAt - n * 1000).toISOString(),
    };
  });
}

/** How many sessions of `machines` announcing machines are open (attention or error). */
export function inboxOpenCount(machines: number, perMachine: number): number {
  let open = 0;
  for (let n = 0; n < machines * perMachine; n++)
    if (INBOX_WHYS[n % INBOX_WHYS.length] !== 'finished') open++;
  return open;
}

/** What an announcing machine's reports carry beyond the usual overview. */
export interface ReportExtras {
  /** The fixed sessions of the inbox scenario, in place of the overview's own. */
  sessions?: InboxSessions;
  /** DESIGN.md 11's fields (the machines-now scenario). */
  machineNow?: boolean;
  /** 8 labels (the labels scenario). */
  labels?: boolean;
  /**
   * The checks' version it was handed (the checks scenario), and its results: `results` of them
   * (RESULTS_PER_REPORT when absent; 0: the version alone).
   */
  checks?: { version: string; results?: number; from?: number };
}

/** The report an announcing machine of the bench sends: its overview, name and location. */
export function announcerReport(
  index: number,
  seq: number,
  now: number,
  extras: ReportExtras = {},
): string {
  const name = machineName('a', index);
  const { sessions } = extras;
  const report = JSON.stringify({
    ...overview(
      { name, index, machineNow: extras.machineNow === true, labels: extras.labels === true },
      seq,
      now,
    ),
    ...(sessions === undefined ? {} : { sessions: inboxSessions(index, sessions) }),
    location: `http://${loopbackAddress(ANNOUNCER_BLOCK, index)}:8701`,
  });
  if (extras.checks === undefined) return report;
  const { version, results, from } = extras.checks;
  const members =
    results === 0
      ? `"checks_version":${JSON.stringify(version)}`
      : resultsJson(index, new Date(now).toISOString(), version, results, from);
  return `${report.slice(0, -1)},${members}}`;
}
