import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import {
  closedPort,
  eventually,
  Recorder,
  writeAgentConfig,
  writeBoardConfig,
} from './helpers/fleet.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'metrics-board-token-0a1b2c3d4e'; // secret-scan: token
const REGISTRATION = 'metrics-registration-5f6a7b8c9d'; // secret-scan: token
const AGENT_TOKEN = 'metrics-agent-token-1c2d3e4f5a'; // secret-scan: token
const KEY = 'metrics-web1-key-6b7c8d9e0f'; // secret-scan: key

interface Family {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}

/** GET /metrics against a real board and agent, read by a real exposition-format parser. */
describe('GET /metrics', () => {
  const dir = tempDir('panoptes-metrics-');
  const http = new Recorder();
  let agent: RunningProgram;
  let board: RunningProgram;

  beforeAll(async () => {
    agent = await startAgent(
      writeAgentConfig(dir, 'web1', { name: 'web1', token: AGENT_TOKEN, board_key: KEY }),
    );
    const dead = await closedPort();
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.3,
        machines: [
          {
            name: 'web1',
            url: agent.url,
            key: KEY,
            labels: { env: 'prod', 'example.com/role': 'web', 'team.x': 'a', 'team-x': 'b' },
          },
          { name: 'dead', url: `http://127.0.0.1:${dead}`, key: KEY },
        ],
      }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    await agent?.stop();
    expectNoSecrets({
      secrets: [BOARD_TOKEN, REGISTRATION, AGENT_TOKEN, KEY],
      texts: [...http.bodies, ...(board?.output ?? []), ...(agent?.output ?? [])],
      dirs: [dir.path],
    });
    dir.cleanup();
  });

  const scrape = async (): Promise<Map<string, Family>> => {
    const r = await http.call(`${board.url}/metrics`, { token: BOARD_TOKEN });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const families = parsePrometheusTextFormat(r.text) as Family[];
    return new Map(families.map((f) => [f.name, f]));
  };
  const sample = (f: Family | undefined, name: string) =>
    f?.metrics.find((m) => m.labels?.name === name);

  it('needs the board token as Bearer (as Prometheus sends it)', async () => {
    expect((await http.call(`${board.url}/metrics`)).status).toBe(401);
    expect((await http.call(`${board.url}/metrics`, { token: REGISTRATION })).status).toBe(403);
  });

  it('has every per-machine family with name and origin, and the board and process metrics', async () => {
    const families = await eventually(async () => {
      const f = await scrape();
      return sample(f.get('panoptes_machine_up'), 'web1')?.value === '1' ? f : undefined;
    }, 'web1 up in /metrics');
    for (const name of [
      'up',
      'late',
      'cpu_use',
      'memory_used_bytes',
      'load1',
      'disk_used_ratio',
      'last_seen_timestamp_seconds',
      'bells_waiting',
      'queued_actions',
    ]) {
      const family = families.get(`panoptes_machine_${name}`);
      expect(family?.type, name).toBe('GAUGE');
      expect(sample(family, 'web1')?.labels, name).toEqual({ name: 'web1', origin: 'configured' });
    }
    expect(sample(families.get('panoptes_machine_up'), 'dead')?.value).toBe('0');
    // A machine that never answered has no cpu sample (absent, not a made-up 0).
    expect(sample(families.get('panoptes_machine_cpu_use'), 'dead')).toBeUndefined();
    const cpu = Number(sample(families.get('panoptes_machine_cpu_use'), 'web1')?.value);
    expect(cpu).toBeGreaterThanOrEqual(0);
    expect(cpu).toBeLessThanOrEqual(1);
    expect(
      Number(families.get('panoptes_sweep_duration_seconds')?.metrics[0]?.value),
    ).toBeGreaterThan(0);
    expect(Number(families.get('panoptes_sweeps_total')?.metrics[0]?.value)).toBeGreaterThan(0);
    expect(families.get('panoptes_machines')?.metrics[0]?.value).toBe('2');
    expect(families.has('panoptes_board_process_resident_memory_bytes')).toBe(true);
    // Open descriptors are counted off the event loop; the defaults that walk every handle
    // on it at each scrape are left out (docs/operations.md).
    expect(
      Number(families.get('panoptes_board_process_open_fds')?.metrics[0]?.value),
    ).toBeGreaterThan(0);
    expect(families.has('panoptes_board_nodejs_active_handles')).toBe(false);
  });

  it('has panoptes_machine_labels: one series per machine, keys as label_<key> made Prometheus-safe', async () => {
    const families = await eventually(async () => {
      const f = await scrape();
      return sample(f.get('panoptes_machine_labels'), 'web1') !== undefined ? f : undefined;
    }, 'the labels family');
    const family = families.get('panoptes_machine_labels');
    expect(family?.type).toBe('GAUGE');
    // Keys that sanitize alike (team-x, team.x): the first in order is written.
    expect(sample(family, 'web1')).toEqual({
      value: '1',
      labels: { name: 'web1', label_env: 'prod', label_example_com_role: 'web', label_team_x: 'b' },
    });
    // A machine without labels still has its series (as kube-state-metrics' kube_node_labels).
    expect(sample(family, 'dead')).toEqual({ value: '1', labels: { name: 'dead' } });
  });

  it('counts reports and relays by outcome; an announced machine appears after the next sweep', async () => {
    const report = await http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab1', location: 'http://lab1.example/', cpu_use: 0.5 }),
    });
    expect(report.status).toBe(200);
    const relay = await http.call(`${board.url}/api/do/dead/job/start`, {
      method: 'POST',
      token: BOARD_TOKEN,
    });
    expect(relay.status).toBe(502);
    const families = await eventually(async () => {
      const f = await scrape();
      return sample(f.get('panoptes_machine_up'), 'lab1') !== undefined ? f : undefined;
    }, 'lab1 in /metrics');
    expect(sample(families.get('panoptes_machine_up'), 'lab1')?.labels?.origin).toBe('announced');
    expect(sample(families.get('panoptes_machine_cpu_use'), 'lab1')?.value).toBe('0.5');
    expect(
      Number(families.get('panoptes_reports_total')?.metrics[0]?.value),
    ).toBeGreaterThanOrEqual(1);
    const failed = families
      .get('panoptes_relays_total')
      ?.metrics.find((m) => m.labels?.outcome === 'failed');
    expect(Number(failed?.value)).toBeGreaterThanOrEqual(1);
  });
});
