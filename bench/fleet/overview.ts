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
}

/** The overview of machine `shape` at its `seq`-th answer, as an object. */
export function overview(shape: MachineShape, seq: number, now: number): Record<string, unknown> {
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
  ].map((d) => ({ ...d, used: d.total - d.free }));
  const running = (seq + i) % 7 !== 0;
  const services = SERVICES.map((s, k) => ({
    name: s.name,
    kind: s.kind,
    state: k === 1 ? (running ? 'running' : 'stopped') : k === 2 ? 'running' : 'stopped',
    actions: [...s.actions],
    board: [...s.board],
    busy: false,
    ...(s.kind === 'process'
      ? {
          last_exit:
            k === 1 && !running
              ? { code: 0, signal: null, at: new Date(now - 60_000).toISOString() }
              : null,
        }
      : {}),
  }));
  const sessions = BELL_TEXTS.slice(0, (i + seq) % 3).map((text, k) => ({
    session: `claude-${(i * 7 + k) % 1000}`,
    why: k === 0 ? 'attention' : 'finished',
    text,
    at: new Date(now - (k + 1) * 90_000).toISOString(),
  }));
  return {
    name: shape.name,
    hostname: `${shape.name}.lab.example.net`,
    platform: 'linux',
    arch: i % 5 === 0 ? 'arm64' : 'x64',
    uptime_s: 86_400 * (1 + (i % 30)) + seq * 5,
    load: [load1, Math.round(load1 * 90) / 100, Math.round(load1 * 80) / 100],
    cpus,
    cpu_use: Math.round((0.3 + 0.25 * wave) * 1000) / 1000,
    memory: { total: memTotal, free: memFree, used: memTotal - memFree },
    disks,
    services,
    sessions,
    version: '0.1.0',
    time: new Date(now).toISOString(),
  };
}

/** The overview as JSON text. */
export function overviewJson(shape: MachineShape, seq: number, now: number): string {
  return JSON.stringify(overview(shape, seq, now));
}

/** The report an announcing machine of the bench sends: its overview, name and location. */
export function announcerReport(index: number, seq: number, now: number): string {
  const name = machineName('a', index);
  return JSON.stringify({
    ...overview({ name, index }, seq, now),
    location: `http://${loopbackAddress(ANNOUNCER_BLOCK, index)}:8701`,
  });
}
