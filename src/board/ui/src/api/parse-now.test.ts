import { describe, expect, it } from 'vitest';
import { parseMachine } from './parse.js';
import { containerAlerts, machineNow } from './parse-now.js';

const container = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  id: '0123456789ab',
  image: 'nginx:1.27',
  state: 'running',
  health: null,
  started_at: '2026-01-01T00:00:00Z',
  cpu: 0.02,
  mem_used: 5e7,
  mem_limit: 5e8,
  restarts: 0,
  ...extra,
});

describe('what runs on a machine now, as the page reads it', () => {
  it('reads each source, and tells an absent source from an empty one', () => {
    const now = machineNow({
      containers: [container('web'), container('db', { state: 'exited', cpu: null })],
      containers_omitted: 3,
      processes: [{ pid: 7, name: 'node', user: 'app', cpu: 0.5, mem: 1e8 }],
      net: { rx_bps: 1500, tx_bps: null, interfaces: [{ name: 'eth0', rx_bps: 1500 }] },
      temps: [],
      smart_error: 'smartctl exited with code 2',
    });
    expect(now.containers?.map((c) => [c.name, c.state, c.cpu])).toEqual([
      ['web', 'running', 0.02],
      ['db', 'exited', null],
    ]);
    expect(now.containers?.[0]?.startedAt).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(now.containersOmitted).toBe(3);
    expect(now.processes).toEqual([{ pid: 7, name: 'node', user: 'app', cpu: 0.5, mem: 1e8 }]);
    expect(now.net).toEqual({
      rxBps: 1500,
      txBps: null,
      interfaces: [{ name: 'eth0', rxBps: 1500, txBps: null, rxBytes: null, txBytes: null }],
    });
    expect(now.temps).toEqual([]);
    expect(now.smart).toBeNull();
    expect(now.smartError).toBe('smartctl exited with code 2');
    expect(now.netError).toBeNull();
  });

  it('is defensive: odd items are left out, figures clamped, text one clean line, lists cut', () => {
    const now = machineNow({
      containers: [
        container('a\u202eb\nc', {
          cpu: 7,
          mem_used: -1,
          restarts: 'x',
          started_at: '0001-01-01T00:00:00Z',
        }),
        { name: 42 },
        null,
        ...Array.from({ length: 600 }, (_, i) => container(`c${i}`)),
      ],
      processes: 'none',
      net: [1, 2],
      temps: [
        { label: 'cpu', c: 'hot' },
        { label: 'gpu', c: 71.5 },
      ],
      smart: [{ device: '/dev/sda', passed: 'yes', power_on_hours: -5 }],
    });
    const odd = now.containers?.[0];
    expect(odd?.name).not.toMatch(/[\u202e\n]/);
    expect([odd?.cpu, odd?.memUsed, odd?.restarts, odd?.startedAt]).toEqual([1, 0, 0, null]);
    // The first 500 items, two of them not containers.
    expect(now.containers).toHaveLength(498);
    expect(now.processes).toBeNull();
    expect(now.net).toBeNull();
    expect(now.temps).toEqual([{ label: 'gpu', c: 71.5 }]);
    expect(now.smart).toEqual([
      { device: '/dev/sda', model: null, passed: null, tempC: null, powerOnHours: 0 },
    ]);
  });

  it('reads the board’s container alerts, and a service’s kind', () => {
    expect(
      containerAlerts([
        { name: 'web', problem: 'stopped' },
        { name: 'db', problem: 'unhealthy' },
        { name: 'x', problem: 'exploded' },
        'y',
      ]),
    ).toEqual([
      { name: 'web', problem: 'stopped' },
      { name: 'db', problem: 'unhealthy' },
    ]);
    const m = parseMachine({
      name: 'm1',
      state: 'up',
      container_alerts: [{ name: 'web', problem: 'stopped' }],
      overview: {
        services: [{ name: 'web', kind: 'container', state: 'running', board: ['stop'] }],
      },
    });
    expect(m.containerAlerts).toEqual([{ name: 'web', problem: 'stopped' }]);
    expect(m.overview?.services[0]?.kind).toBe('container');
    expect(m.overview?.now.containers).toBeNull();
    expect(parseMachine({ name: 'm2', state: 'up' }).containerAlerts).toEqual([]);
  });
});
