/** The rows and batches the history contract's cases write, and the time they start at. */
import type { Sample, WriteBatch } from '../history/history-store.js';

export const T0 = 1_700_000_000; // epoch seconds, a multiple of 3600 minus nothing in particular
const keepAll = { raw: 0, m5: 0, h1: 0 };
export const batch = (over: Partial<WriteBatch>): WriteBatch => ({
  samples: [],
  events: [],
  forget: [],
  cutoffs: keepAll,
  ...over,
});
export const values = (cpu: number | null, load = 1.5) => ({
  cpu,
  mem: 0.5,
  load,
  disk: 0.75,
  latency_ms: 12.5,
  bells: 2,
  gpu_util: 0.875,
  gpu_mem: 0.25,
  net_rx: 125_000,
  net_tx: 2500,
  temp_max: 47.5,
});
export const agg = (t: number, n: number, cpu: number, cpuMax: number): Sample => ({
  t,
  n,
  up: 0.5,
  avg: { ...values(cpu), bells: 1, gpu_util: cpu, net_rx: cpu * 1e6, temp_max: cpu * 100 },
  max: {
    ...values(cpuMax),
    bells: 3,
    gpu_util: cpuMax,
    net_rx: cpuMax * 1e6,
    temp_max: cpuMax * 100,
  },
});
