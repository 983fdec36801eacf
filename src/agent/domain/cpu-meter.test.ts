import { describe, expect, it } from 'vitest';
import { CpuMeter, type CpuTimes } from './cpu-meter.js';

function core(busy: number, idle: number): { times: CpuTimes } {
  return { times: { user: busy, nice: 0, sys: 0, idle, irq: 0 } };
}

describe('CpuMeter', () => {
  it('starts with the average since boot, then measures between readings', () => {
    let cpus = [core(100, 300), core(100, 300)];
    const meter = new CpuMeter(() => cpus, 250);
    expect(meter.use()).toBe(0.25);
    cpus = [core(100 + 900, 300 + 100), core(100 + 500, 300 + 500)];
    expect(meter.use()).toBe(0.7);
  });

  it('reuses the last value for readings too close together', () => {
    let cpus = [core(0, 1000)];
    const meter = new CpuMeter(() => cpus, 250);
    cpus = [core(100, 1000)];
    expect(meter.use()).toBe(0);
    cpus = [core(600, 1000)];
    expect(meter.use()).toBe(1);
  });

  it('stays within 0–1 when the counters go backwards', () => {
    let cpus = [core(1000, 1000)];
    const meter = new CpuMeter(() => cpus, 0);
    cpus = [core(10, 5000)];
    const use = meter.use();
    expect(use).toBeGreaterThanOrEqual(0);
    expect(use).toBeLessThanOrEqual(1);
  });
});
