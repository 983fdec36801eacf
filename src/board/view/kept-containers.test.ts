import { describe, expect, it } from 'vitest';
import { containersOf, smartOf } from '../domain/machine-now.js';
import { emptyMetrics, metricsOf } from '../domain/metrics.js';
import { keptContainers, keptSmart } from './kept-containers.js';
import { MetricNumbers } from './metric-numbers.js';

const c = (name: string, state = 'running', cpu = 0.1) => ({ name, state, health: null, cpu });

describe('the containers a machine keeps from one overview to the next', () => {
  it('the same containers in the same states: the kept list and objects, their numbers new', () => {
    const before = containersOf([c('a'), c('b')]);
    const now = containersOf([c('a', 'running', 0.5), c('b', 'running', 0.25)]);
    const kept = keptContainers(before, now);
    expect(kept).toBe(before);
    expect(kept?.map((x) => x.cpu)).toEqual([0.5, 0.25]);
  });

  it('a state, a name or the order changed: the new list, holding the kept names where equal', () => {
    const before = containersOf([c('alpha'), c('beta')]);
    for (const list of [
      [c('alpha', 'exited'), c('beta')],
      [c('alpha'), c('gamma')],
      [c('beta'), c('alpha')],
      [c('alpha')],
    ]) {
      const now = containersOf(list);
      const kept = keptContainers(before, now);
      expect(kept).toBe(now);
      expect(kept).not.toBe(before);
    }
    const now = containersOf([c('alpha', 'exited'), c('beta')]);
    keptContainers(before, now);
    expect(now?.[0]?.name).toBe(before?.[0]?.name);
    // None listed this time (no engine, or its read failed): none kept.
    expect(keptContainers(before, null)).toBeNull();
  });

  it('disk health: the kept list while it says the same', () => {
    const before = smartOf([{ device: '/dev/sda', passed: true }]);
    expect(keptSmart(before, smartOf([{ device: '/dev/sda', passed: true }]))).toBe(before);
    const failing = smartOf([{ device: '/dev/sda', passed: false }]);
    expect(keptSmart(before, failing)).toBe(failing);
  });

  it('MetricNumbers keeps them, reads back the new numbers, and forgets them when down', () => {
    const numbers = new MetricNumbers();
    const overview = (cpu: number) => ({
      containers: [c('web', 'running', cpu)],
      net: { rx_bps: 100, tx_bps: 50, interfaces: [] },
      temps: [{ label: 'x', c: 55.5 }],
      smart: [{ device: '/dev/sda', passed: true }],
    });
    numbers.take(metricsOf(overview(0.1), null));
    const list = numbers.containers;
    const smart = numbers.smart;
    numbers.take(metricsOf(overview(0.9), null));
    expect(numbers.containers).toBe(list);
    expect(numbers.smart).toBe(smart);
    expect(numbers.containers?.[0]?.cpu).toBe(0.9);
    expect([numbers.netRx, numbers.netTx, numbers.tempMax]).toEqual([100, 50, 55.5]);
    expect(JSON.parse(JSON.stringify(numbers))).toEqual(
      JSON.parse(JSON.stringify(metricsOf(overview(0.9), null))),
    );
    numbers.take(emptyMetrics());
    expect([numbers.containers, numbers.smart, numbers.tempMax]).toEqual([null, null, null]);
  });
});
