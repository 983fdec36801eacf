import { readFileSync } from 'node:fs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H100_LOAD, L40S_LOAD_AS_1, type StandInSmi, standInSmiEnv } from '../harness/gpu.js';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { Overview } from '../src/shared/wire/overview.js';
import { eventually, Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'gpu-board-token-0a1b2c3d4e5f'; // secret-scan: token
const REGISTRATION = 'gpu-registration-6a7b8c9d0e'; // secret-scan: token
const AGENT_TOKEN = 'gpu-agent-token-1c2d3e4f5a6b'; // secret-scan: token
const KEY = 'gpu-board-key-7b8c9d0e1f2a'; // secret-scan: key

const MIB = 1024 * 1024;

interface Family {
  name: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}

/**
 * GPU hosts end to end: real agents with the stand-in nvidia-smi first on their PATH (or none),
 * a real board polling four of them and taking reports from a fifth.
 */
describe('GPU hosts', () => {
  const dir = tempDir('panoptes-gpu-');
  const http = new Recorder();
  const agents: Record<string, RunningProgram> = {};
  let board: RunningProgram;
  const calls = { gpu1: `${dir.path}/gpu1.calls`, slow: `${dir.path}/slow.calls` };

  /** Starts an agent with the stand-in nvidia-smi behaving as `smi`, or with none (`null`). */
  const start = async (name: string, smi: StandInSmi | null, extra: Record<string, unknown>) => {
    agents[name] = await startAgent(
      writeAgentConfig(dir, name, {
        name,
        token: AGENT_TOKEN,
        board_key: KEY,
        data_dir: `${dir.path}/${name}-data`,
        ...extra,
      }),
      // No stand-in: only the system's directories (this machine has no nvidia-smi or rocm-smi).
      { env: smi === null ? { PATH: '/usr/bin:/bin' } : standInSmiEnv(smi) },
    );
  };

  beforeAll(async () => {
    await Promise.all([
      start('gpu1', { sample: 'two-gpus-composed', calls: calls.gpu1 }, { gpu_interval: 1 }),
      start('broken', { fail: 'driver' }, { gpu_interval: 1 }),
      start('garbled', { fail: 'garbage' }, { gpu_interval: 1 }),
      start('plain', null, {}),
      start('slow', { sleepS: 2, calls: calls.slow }, { gpu_interval: 3 }),
    ]);
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.3,
        machines: ['gpu1', 'broken', 'garbled', 'plain', 'slow'].map((name) => ({
          name,
          url: agents[name]?.url,
          key: KEY,
        })),
      }),
    );
    // Announced, and its stand-in prints units although asked not to: the parser copes.
    await start(
      'gpu2',
      { units: true },
      { report: { board: board.url, token: REGISTRATION, interval: 0.5 } },
    );
  });
  afterAll(async () => {
    await board?.stop();
    await Promise.all(Object.values(agents).map((a) => a.stop()));
    dir.cleanup();
  });

  const overview = async (name: string) => {
    const r = await http.call(`${agents[name]?.url}/api/overview`, { token: AGENT_TOKEN });
    expect(r.status).toBe(200);
    // Whatever the GPU tool did, the overview is one the schema accepts.
    expect(Value.Errors(Overview, r.json)).toEqual([]);
    return r.json as Overview;
  };
  const boardMachine = async (name: string) => {
    const r = await http.call(`${board.url}/api/board`, { token: BOARD_TOKEN });
    const machines = (r.json as { machines: { name: string; overview: Overview | null }[] })
      .machines;
    return machines.find((m) => m.name === name);
  };

  it("the agent's overview carries each GPU exactly as nvidia-smi recorded it", async () => {
    const o = await eventually(async () => {
      const o = await overview('gpu1');
      return o.gpus === undefined ? undefined : o;
    }, 'gpus on gpu1');
    expect(o.gpus).toEqual([H100_LOAD, L40S_LOAD_AS_1]);
    expect(o.gpus_error).toBeUndefined();
    // Every call was the agent's one query, in the form without header and units.
    const lines = readFileSync(calls.gpu1, 'utf8').trim().split('\n');
    for (const line of lines)
      expect(line.split(' ').slice(2)).toEqual([
        '--query-gpu=index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw',
        '--format=csv,noheader,nounits',
      ]);
  });

  it('an announcing agent reports them, read from the with-units form too', async () => {
    const m = await eventually(async () => {
      const m = await boardMachine('gpu2');
      return m?.overview?.gpus === undefined ? undefined : m;
    }, 'gpus of gpu2 on the board');
    expect(m.overview?.gpus).toEqual([H100_LOAD]);
  });

  it('the board shows them in /api/board and /metrics, and history records the busiest GPU', async () => {
    const m = await eventually(async () => {
      const m = await boardMachine('gpu1');
      return m?.overview?.gpus === undefined ? undefined : m;
    }, 'gpus of gpu1 on the board');
    expect(m.overview?.gpus).toEqual([H100_LOAD, L40S_LOAD_AS_1]);

    const families = await eventually(async () => {
      const r = await http.call(`${board.url}/metrics`, { token: BOARD_TOKEN });
      const f = new Map((parsePrometheusTextFormat(r.text) as Family[]).map((x) => [x.name, x]));
      // The text is prepared once per sweep: it may trail /api/board by one.
      const power = f.get('panoptes_gpu_power_watts')?.metrics ?? [];
      return power.some((x) => x.labels?.name === 'gpu1' && x.labels?.gpu === '1') ? f : undefined;
    }, 'the GPUs of gpu1 on /metrics');
    const value = (family: string, name: string, gpu: string) =>
      Number(
        families.get(family)?.metrics.find((x) => x.labels?.name === name && x.labels?.gpu === gpu)
          ?.value,
      );
    expect(value('panoptes_gpu_utilization_ratio', 'gpu1', '0')).toBe(1);
    expect(value('panoptes_gpu_utilization_ratio', 'gpu1', '1')).toBe(0.09);
    expect(value('panoptes_gpu_memory_used_bytes', 'gpu1', '1')).toBe(1235 * MIB);
    expect(value('panoptes_gpu_memory_total_bytes', 'gpu1', '0')).toBe(81559 * MIB);
    expect(value('panoptes_gpu_temperature_celsius', 'gpu1', '1')).toBe(54);
    expect(value('panoptes_gpu_power_watts', 'gpu1', '0')).toBe(631.95);
    // Machines without GPU figures (a failing tool, none) have no GPU series.
    for (const f of families.values())
      if (f.name.startsWith('panoptes_gpu_'))
        for (const x of f.metrics) expect(['gpu1', 'gpu2', 'slow']).toContain(x.labels?.name ?? '');

    const history = await eventually(async () => {
      const r = await http.call(`${board.url}/api/machines/gpu1/history?range=1h`, {
        token: BOARD_TOKEN,
      });
      const series = (r.json as { series: Record<string, (number | null)[]> }).series;
      return series.gpu_util?.some((v) => v !== null) ? series : undefined;
    }, 'gpu_util in the history of gpu1');
    expect(history.gpu_util?.filter((v) => v !== null).every((v) => v === 1)).toBe(true);
    for (const v of history.gpu_mem?.filter((x) => x !== null) ?? [])
      expect(v).toBeCloseTo(19818 / 81559, 3);
    const plain = await http.call(`${board.url}/api/machines/plain/history?range=1h`, {
      token: BOARD_TOKEN,
    });
    const plainSeries = (plain.json as { series: Record<string, (number | null)[]> }).series;
    expect(plainSeries.gpu_util?.every((v) => v === null)).toBe(true);
  });

  it('a failing tool gives gpus_error and a valid overview, on the agent and on the board', async () => {
    const o = await eventually(async () => {
      const o = await overview('broken');
      return o.gpus_error === undefined ? undefined : o;
    }, 'gpus_error on broken');
    expect(o.gpus_error).toBe(
      "nvidia-smi exited with code 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    );
    expect(o.gpus).toBeUndefined();
    expect(o.cpus).toBeGreaterThan(0);
    const garbled = await eventually(async () => {
      const o = await overview('garbled');
      return o.gpus_error === undefined ? undefined : o;
    }, 'gpus_error on garbled');
    expect(garbled.gpus_error).toMatch(/^nvidia-smi printed a line of 1 fields/);
    const m = await eventually(async () => {
      const m = await boardMachine('broken');
      return m?.overview?.gpus_error === undefined ? undefined : m;
    }, 'gpus_error of broken on the board');
    expect(m.overview?.gpus_error).toBe(o.gpus_error);
  });

  it('no nvidia-smi on the machine: no gpus and no gpus_error', async () => {
    await eventually(
      async () => ((await boardMachine('plain'))?.overview ? true : undefined),
      'plain polled',
    );
    const o = await overview('plain');
    expect('gpus' in o).toBe(false);
    expect('gpus_error' in o).toBe(false);
  });

  it('a slow (2 s) nvidia-smi: the overview answers meanwhile, and at most one call per interval', async () => {
    const firstCall = await eventually(async () => {
      try {
        return readFileSync(calls.slow, 'utf8');
      } catch {
        return undefined;
      }
    }, 'a first call of the slow stand-in');
    expect(firstCall).not.toBe('');
    // While the first read sleeps, overviews are answered (without GPUs yet, then with them).
    await overview('slow');
    const o = await eventually(async () => {
      const o = await overview('slow');
      return o.gpus === undefined ? undefined : o;
    }, 'gpus on slow');
    expect(o.gpus).toEqual([H100_LOAD]);
    // Let a few intervals pass, then: starts at least an interval (3 s) apart, never overlapping.
    await eventually(
      async () => {
        const n = readFileSync(calls.slow, 'utf8').trim().split('\n').length;
        return n >= 3 ? true : undefined;
      },
      'three calls of the slow stand-in',
      30_000,
    );
    const starts = readFileSync(calls.slow, 'utf8')
      .trim()
      .split('\n')
      .map((l) => Number(l.split(' ')[1]));
    for (let i = 1; i < starts.length; i += 1)
      expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBeGreaterThanOrEqual(3000 - 50);
  });
});
