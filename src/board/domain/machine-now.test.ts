import { describe, expect, it } from 'vitest';
import { CONTAINERS_MAX } from '../../shared/wire/machine-now.js';
import { containersOf, NO_CONTAINERS, NO_SMART, smartOf, tempMaxOf } from './machine-now.js';
import { emptyMetrics, metricsOf } from './metrics.js';

const container = (name: unknown, extra: Record<string, unknown> = {}) => ({
  name,
  id: '0123456789ab',
  image: 'nginx:1.27',
  state: 'running',
  health: 'healthy',
  started_at: '2026-01-01T00:00:00Z',
  cpu: 0.125,
  mem_used: 52_428_800,
  mem_limit: null,
  restarts: 0,
  ...extra,
});

describe("the machine's containers, network, temperatures and disk health of an overview", () => {
  it('takes what history, rules, events and /metrics need of a full overview', () => {
    const m = metricsOf(
      {
        containers: [container('web'), container('db', { state: 'exited', health: null })],
        containers_omitted: 3,
        processes: [{ pid: 1, name: 'init', user: 'root', cpu: 0, mem: 1 }],
        net: { rx_bps: 1250.5, tx_bps: null, interfaces: [] },
        temps: [
          { label: 'coretemp Package id 0', c: 61.5 },
          { label: 'nvme Composite', c: 38 },
        ],
        smart: [{ device: '/dev/nvme0', model: 'X', passed: false, temp_c: 40, power_on_hours: 9 }],
      },
      null,
    );
    expect(m.containers).toEqual([
      { name: 'web', state: 'running', health: 'healthy', cpu: 0.125, memUsedBytes: 52_428_800 },
      { name: 'db', state: 'exited', health: null, cpu: 0.125, memUsedBytes: 52_428_800 },
    ]);
    expect(m.containersPartial).toBe(true);
    expect([m.netRx, m.netTx, m.tempMax]).toEqual([1250.5, null, 61.5]);
    expect(m.smart).toEqual([{ device: '/dev/nvme0', passed: false }]);
  });

  it('an overview without them costs no list: nulls, and nothing known of the engine', () => {
    for (const overview of [
      {},
      { containers_error: 'connect ENOENT', temps_error: 'x', smart_error: 'y', net_error: 'z' },
    ]) {
      const m = metricsOf(overview, null);
      expect([m.netRx, m.netTx, m.tempMax, m.containers, m.smart, m.containersPartial]).toEqual([
        null,
        null,
        null,
        null,
        null,
        false,
      ]);
    }
    // An engine that runs none, and a disk list that is empty: one shared empty list each.
    expect(containersOf([])).toBe(NO_CONTAINERS);
    expect(smartOf([])).toBe(NO_SMART);
    const empty = emptyMetrics();
    expect([empty.containers, empty.smart, empty.tempMax]).toEqual([null, null, null]);
  });

  it('never trusts the shape: bad entries skipped, names cleaned and cut, each once, at most 500', () => {
    const list = containersOf([
      null,
      'web',
      container(7),
      container(''),
      container('a"b\\c\nd\u202e', { state: 'stopped', health: 'sick', cpu: 3, mem_used: -5 }),
      container('twice'),
      container('twice', { state: 'exited' }),
      container('x'.repeat(300)),
      ...Array.from({ length: CONTAINERS_MAX + 20 }, (_, i) => container(`c${i}`)),
    ]);
    expect(list?.[0]).toEqual({
      name: 'a"b\\c\ufffdd\ufffd',
      state: 'unknown',
      health: null,
      cpu: 1,
      memUsedBytes: 0,
    });
    expect(list?.filter((c) => c.name === 'twice').map((c) => c.state)).toEqual(['running']);
    expect(list?.[2]?.name).toHaveLength(255);
    expect(list?.length).toBeLessThan(CONTAINERS_MAX);
    expect(containersOf({ web: container('web') })).toBeNull();
    expect(smartOf([{ device: '/dev/sda', passed: 'yes' }, { device: 3 }, null])).toEqual([
      { device: '/dev/sda', passed: null },
    ]);
  });

  it('the hottest sensor is the largest finite reading', () => {
    expect(tempMaxOf([{ c: -5 }, { c: Number.NaN }, { c: '90' }, null, { c: 42 }])).toBe(42);
    expect(tempMaxOf([{ c: -12 }])).toBe(-12);
    expect(tempMaxOf([])).toBeNull();
    expect(tempMaxOf('hot')).toBeNull();
    expect(metricsOf({ net: { rx_bps: -1, tx_bps: 'fast' } }, null).netRx).toBe(0);
  });
});
