import type { MetricName } from '../history/history-store.js';

/**
 * How both history engines store a value: a scaled integer. Shares (up, cpu, mem, disk,
 * gpu_util, gpu_mem) × 10,000, load and bells × 100, latency × 10 (0.1 ms), temp_max × 10
 * (0.1 °C), net_rx and net_tx as they are (whole bytes a second). Both engines round alike and
 * divide back alike, so they answer the same values for the same input.
 */
export const SCALE: Readonly<Record<MetricName, number>> = {
  cpu: 10_000,
  mem: 10_000,
  load: 100,
  disk: 10_000,
  latency_ms: 10,
  bells: 100,
  gpu_util: 10_000,
  gpu_mem: 10_000,
  net_rx: 1,
  net_tx: 1,
  temp_max: 10,
};

/** The scale of an aggregate's share up (a raw row's up is 0 or 1). */
export const UP_SCALE = 10_000;

/** A value as its scaled integer (null stays null). */
export function scaled(value: number | null, scale: number): number | null {
  return value === null ? null : Math.round(value * scale);
}
