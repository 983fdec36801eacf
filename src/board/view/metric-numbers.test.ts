import { describe, expect, it } from 'vitest';
import { newMachine } from '../domain/machine.js';
import { emptyMetrics, type MachineMetrics, metricsOf } from '../domain/metrics.js';
import { keepMetrics, MetricNumbers } from './metric-numbers.js';

const withDisks = (disks: { path: string; used: number }[]): MachineMetrics =>
  metricsOf({ disks: disks.map((d) => ({ path: d.path, total: 100, used: d.used })) }, null);

const overview = (cpu: number, used: number) => ({
  cpu_use: cpu,
  memory: { total: 1000, used },
  load: [1.5, 1, 0.5],
  disks: [{ path: '/', total: 100, used: 40 }],
  gpus: [{ index: 0, name: 'L40S', util: 0.5, mem_used: 10, mem_total: 40 }],
  sessions: [{ session: 's1', why: 'attention', text: 'look', at: 't1' }],
});

const kept = (next: MachineMetrics): MetricNumbers => {
  const m = new MetricNumbers();
  m.take(next);
  return m;
};

describe('a machine’s metrics, written in place', () => {
  it('reads back what it took, null for what is unknown and 0 as 0', () => {
    const plain = metricsOf(overview(0, 250), 12);
    const m = kept(plain);
    expect(m.cpu).toBe(0);
    expect(m.mem).toBe(0.25);
    expect(m.load).toBe(1.5);
    expect(m.latencyMs).toBe(12);
    expect(m.gpuMem).toBe(0.25);
    expect(m.toJSON()).toEqual(plain);
    // The cluster publishes it as JSON: the same text as the plain object's.
    expect(JSON.parse(JSON.stringify(m))).toEqual(JSON.parse(JSON.stringify(plain)));
    const none = kept(metricsOf({}, null));
    expect(none.toJSON()).toEqual(emptyMetrics());
    expect([none.cpu, none.mem, none.memUsedBytes, none.load, none.disk]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('keeps one object for a machine’s life: the next overview is written over the last', () => {
    const machine = newMachine({ name: 'a', origin: 'announced', location: '', firstSeen: 0 });
    keepMetrics(machine, metricsOf(overview(0.5, 500), null));
    const first = machine.metrics;
    expect(first).toBeInstanceOf(MetricNumbers);
    keepMetrics(machine, metricsOf(overview(0.75, 100), 3));
    expect(machine.metrics).toBe(first);
    expect((machine.metrics as MetricNumbers).toJSON()).toEqual(metricsOf(overview(0.75, 100), 3));
    // Down: every number unknown, in the same place.
    keepMetrics(machine, emptyMetrics());
    expect(machine.metrics).toBe(first);
    expect((machine.metrics as MetricNumbers).toJSON()).toEqual(emptyMetrics());
  });

  it('takes a plain object a test or an older path left in place of its own', () => {
    const machine = { metrics: emptyMetrics() as MachineMetrics | null };
    keepMetrics(machine, metricsOf(overview(0.5, 500), null));
    expect(machine.metrics).toBeInstanceOf(MetricNumbers);
    expect(machine.metrics?.cpu).toBe(0.5);
  });

  it('keeps its disks while they are the same disks, their shares written over', () => {
    const m = kept(
      withDisks([
        { path: '/', used: 10 },
        { path: '/scratch', used: 20 },
      ]),
    );
    const before = m.disks;
    const first = before[0];
    m.take(
      withDisks([
        { path: '/', used: 11 },
        { path: '/scratch', used: 20 },
      ]),
    );
    expect(m.disks).toBe(before);
    expect(m.disks[0]).toBe(first);
    expect(m.disks).toEqual([
      { path: '/', ratio: 0.11 },
      { path: '/scratch', ratio: 0.2 },
    ]);
    expect(m.disk).toBe(0.2);
    // Another order is other disks: a new list.
    const swapped = withDisks([
      { path: '/scratch', used: 20 },
      { path: '/', used: 11 },
    ]);
    m.take(swapped);
    expect(m.disks).toBe(swapped.disks);
  });

  it('takes the new disks whole when they are other disks; none is one shared empty list', () => {
    const m = kept(withDisks([{ path: '/', used: 10 }]));
    const other = withDisks([{ path: '/data', used: 10 }]);
    m.take(other);
    expect(m.disks).toBe(other.disks);
    m.take(metricsOf({}, null));
    const again = kept(metricsOf({ disks: [] }, null));
    expect(m.disks).toEqual([]);
    expect(m.disks).toBe(again.disks);
    expect(Object.isFrozen(m.disks)).toBe(true);
  });
});
