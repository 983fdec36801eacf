import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { type Received, Receiver } from '../src/board/notify/channels/receivers.js';
import { reportBody } from './helpers/browser.js';
import { type FaultyAgent, httpAgent, overview } from './helpers/faulty-agents.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'machine-now-board-token-3e7a'; // secret-scan: token
const REG = 'machine-now-registration-8c2d'; // secret-scan: token
const KEY = 'machine-now-agent-key-5b1f'; // secret-scan: key

/** A container name a machine may choose: quotes, backslash, markup and a line of its own. */
const ODD = 'odd"name\\<b>';

interface Family {
  name: string;
  metrics: { value: string; labels: Record<string, string> }[];
}

interface HookEvent {
  event: string;
  machine: string;
  container?: string;
  problem?: string;
  device?: string;
  recovered?: boolean;
  metric?: string;
  value?: number;
  duration_s?: number;
}

const container = (name: string, state = 'running', health: string | null = null) => ({
  name,
  id: 'c0ffee0123456789',
  image: 'registry.example/app:1',
  state,
  health,
  started_at: '2026-01-01T00:00:00Z',
  cpu: state === 'running' ? 0.125 : null,
  mem_used: state === 'running' ? 64 * 1024 * 1024 : null,
  mem_limit: null,
  restarts: 0,
});

/**
 * Containers, disk health, network rates and temperatures end to end: a real board process, an
 * announced machine reporting over HTTP, a configured one polled from a real HTTP server, and
 * the notifications at a real webhook receiver.
 */
describe('containers, disk health, network and temperatures on the board', () => {
  const dir = tempDir('panoptes-machine-now-');
  const hook = new Receiver();
  const http = new Recorder();
  let board: RunningProgram;
  let polled: FaultyAgent;
  /** What the polled machine says now (changed by the tests). */
  let polledTemps = [{ label: 'coretemp Package id 0', c: 45 }];

  const call = (path: string) => http.call(`${board.url}${path}`, { token: TOKEN });
  /** One report of box1 with these fields beside the usual ones; answers its status. */
  const report = async (fields: Record<string, unknown>) => {
    const r = await http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REG,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...reportBody('box1', 'http://box1.lab:8701', []),
        interval_s: 1,
        ...fields,
      }),
    });
    expect(r.status).toBe(200);
  };
  const events = (): HookEvent[] =>
    hook.requests.flatMap((r: Received) => (JSON.parse(r.body) as { events: HookEvent[] }).events);
  const texts = () => hook.requests.map((r) => (JSON.parse(r.body) as { text: string }).text);
  /** Waits for a webhook event matching `want`. */
  const delivered = (want: Partial<HookEvent>, what: string) =>
    eventually(async () => {
      const found = events().find((e) =>
        Object.entries(want).every(([k, v]) => (e as unknown as Record<string, unknown>)[k] === v),
      );
      return found;
    }, what);
  const alertsOf = async (name: string) => {
    const r = await call('/api/board');
    const m = (
      r.json as { machines: { name: string; container_alerts?: unknown }[] }
    ).machines.find((x) => x.name === name);
    return m?.container_alerts;
  };
  const usual = {
    net: { rx_bps: 125_000, tx_bps: 2500.5, interfaces: [] },
    temps: [
      { label: 'coretemp Package id 0', c: 55 },
      { label: 'nvme Composite', c: 41.5 },
    ],
    smart: [{ device: '/dev/sda', model: 'WDC', passed: true, temp_c: 30, power_on_hours: 9000 }],
  };

  beforeAll(async () => {
    await hook.start();
    polled = await httpAgent((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        overview('poll1', {
          cpu_use: 0.5,
          net: { rx_bps: 9000, tx_bps: 100, interfaces: [] },
          temps: polledTemps,
        }),
      );
    });
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REG,
        sweep_interval: 0.2,
        stale_after: 60,
        machines: [{ name: 'poll1', url: polled.url, key: KEY }],
        notify: {
          timeout: 2,
          channels: [{ name: 'hook', url: `http://${hook.host}/panoptes` }],
          rules: [
            { events: ['container', 'disk_health'], channels: ['hook'] },
            { events: ['threshold'], channels: ['hook'], metric: 'temp', above: 80 },
          ],
        },
      }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    await polled?.close();
    await hook.stop();
    dir.cleanup();
  });

  it('a container that stops is sent, shown in container_alerts, and its recovery is sent', async () => {
    await report({
      ...usual,
      containers: [container('web', 'running', 'healthy'), container('db')],
    });
    await eventually(
      async () => ((await call('/api/board')).text.includes('"box1"') ? true : undefined),
      'box1 on the board',
    );
    expect(await alertsOf('box1')).toBeUndefined();
    // The live feed sends box1's record as it changes.
    const live = new WebSocket(`${board.url.replace('http', 'ws')}/api/live?token=${TOKEN}`);
    const records: { name: string; container_alerts?: unknown }[] = [];
    live.on('message', (m) => {
      const message = JSON.parse(String(m)) as { type: string; machine?: (typeof records)[0] };
      if (message.type === 'machine' && message.machine !== undefined)
        records.push(message.machine);
    });
    await new Promise((resolve) => live.once('open', resolve));
    await report({ ...usual, containers: [container('web', 'exited'), container('db')] });
    const stopped = await delivered({ event: 'container', container: 'web' }, 'web stopped');
    expect(stopped).toMatchObject({ machine: 'box1', problem: 'stopped' });
    expect(stopped.recovered).toBeUndefined();
    expect(texts().join('\n')).toContain('✖ box1: container web stopped (exited)');
    expect(await alertsOf('box1')).toEqual([{ name: 'web', problem: 'stopped' }]);
    await eventually(
      async () =>
        records.some((r) => r.name === 'box1' && r.container_alerts !== undefined)
          ? true
          : undefined,
      'container_alerts in the live feed',
    );
    live.close();
    expect(records.find((r) => r.container_alerts !== undefined)?.container_alerts).toEqual([
      { name: 'web', problem: 'stopped' },
    ]);
    // The OpenAPI document describes the field.
    const spec = (await call('/api/openapi.json')).text;
    expect(spec).toContain('"container_alerts"');

    // web runs again, db turns unhealthy: one recovery, one new episode.
    await report({
      ...usual,
      containers: [container('web', 'running', 'healthy'), container('db', 'running', 'unhealthy')],
    });
    await delivered({ event: 'container', container: 'web', recovered: true }, 'web recovered');
    await delivered({ event: 'container', container: 'db', problem: 'unhealthy' }, 'db unhealthy');
    await eventually(async () => {
      const alerts = await alertsOf('box1');
      return JSON.stringify(alerts) === '[{"name":"db","problem":"unhealthy"}]' ? true : undefined;
    }, 'db alone in container_alerts');
    await report({
      ...usual,
      containers: [container('web'), container('db', 'running', 'healthy')],
    });
    await delivered({ event: 'container', container: 'db', recovered: true }, 'db recovered');
    await eventually(
      async () => ((await alertsOf('box1')) === undefined ? true : undefined),
      'no container_alerts',
    );
    // Each stop and recovery went out once.
    expect(events().filter((e) => e.event === 'container')).toHaveLength(4);
  });

  it('a failing disk is sent as disk_health, and a hot machine passes a temp threshold', async () => {
    await report({
      ...usual,
      temps: [{ label: 'coretemp Package id 0', c: 91.5 }],
      smart: [{ ...usual.smart[0], passed: false }],
      containers: [container('web'), container(ODD)],
    });
    const disk = await delivered({ event: 'disk_health', device: '/dev/sda' }, 'disk failing');
    expect(disk.recovered).toBeUndefined();
    const hot = await delivered({ event: 'threshold', metric: 'temp' }, 'box1 too hot');
    expect(hot).toMatchObject({ machine: 'box1', value: 91.5 });
    expect(texts().join('\n')).toContain('⚠ box1 temp at 91.5 °C (above 80 °C)');
    await report({ ...usual, containers: [container('web'), container(ODD)] });
    await delivered({ event: 'disk_health', device: '/dev/sda', recovered: true }, 'disk passes');
  });

  it('/metrics has each container and the network and temperature families, parseable', async () => {
    polledTemps = [{ label: 'k10temp Tctl', c: 67 }];
    const families = await eventually(async () => {
      const r = await call('/metrics');
      const parsed = new Map(
        (parsePrometheusTextFormat(r.text) as Family[]).map((f) => [f.name, f]),
      );
      const up = parsed.get('panoptes_container_up')?.metrics ?? [];
      const temps = parsed.get('panoptes_machine_temp_max_celsius')?.metrics ?? [];
      return up.some((m) => m.labels.container === ODD) &&
        temps.some((m) => m.labels.name === 'poll1' && m.value === '67')
        ? parsed
        : undefined;
    }, 'the containers of box1 on /metrics');
    const value = (family: string, labels: Record<string, string>) =>
      families
        .get(family)
        ?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels[k] === v))?.value;
    expect(value('panoptes_container_up', { machine: 'box1', container: 'web' })).toBe('1');
    expect(value('panoptes_container_up', { machine: 'box1', container: ODD })).toBe('1');
    expect(value('panoptes_container_cpu', { machine: 'box1', container: 'web' })).toBe('0.125');
    expect(value('panoptes_container_mem_bytes', { machine: 'box1', container: 'web' })).toBe(
      String(64 * 1024 * 1024),
    );
    expect(value('panoptes_machine_net_rx_bytes_per_second', { name: 'box1' })).toBe('125000');
    expect(value('panoptes_machine_net_tx_bytes_per_second', { name: 'box1' })).toBe('2500.5');
    expect(value('panoptes_machine_temp_max_celsius', { name: 'box1' })).toBe('55');
    expect(value('panoptes_machine_net_rx_bytes_per_second', { name: 'poll1' })).toBe('9000');
    // The polled machine has no engine: no container series of its own.
    expect(
      families.get('panoptes_container_up')?.metrics.some((m) => m.labels.machine === 'poll1'),
    ).toBe(false);
  });

  it('history records net_rx, net_tx and temp_max, polled and reported alike', async () => {
    for (const [name, rx, temp] of [
      ['box1', 125_000, 55],
      ['poll1', 9000, 67],
    ] as const) {
      const series = await eventually(async () => {
        const r = await call(`/api/machines/${name}/history?range=1h&points=60`);
        expect(r.status).toBe(200);
        const s = (r.json as { series: Record<string, (number | null)[]> }).series;
        return s.temp_max?.at(-1) === temp ? s : undefined;
      }, `temp_max in the history of ${name}`);
      expect(series.net_rx?.at(-1)).toBe(rx);
      expect(series.net_tx?.filter((v) => v !== null).length).toBeGreaterThan(0);
    }
  });
});
