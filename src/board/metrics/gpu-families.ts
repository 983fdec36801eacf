import type { Machine } from '../domain/machine.js';
import type { GpuUse } from '../domain/metrics.js';
import { escapeLabel } from './label-value.js';

/** One per-GPU family: its full name, help, and the value of a GPU (null: not known). */
interface GpuFamily {
  name: string;
  help: string;
  value: (g: GpuUse) => number | null;
}

const GPU_FAMILIES: readonly GpuFamily[] = [
  {
    name: 'panoptes_gpu_utilization_ratio',
    help: 'share of the GPU busy, 0-1',
    value: (g) => g.util,
  },
  {
    name: 'panoptes_gpu_memory_used_bytes',
    help: 'GPU memory in use, bytes',
    value: (g) => g.memUsedBytes,
  },
  {
    name: 'panoptes_gpu_memory_total_bytes',
    help: 'GPU memory, bytes',
    value: (g) => g.memTotalBytes,
  },
  {
    name: 'panoptes_gpu_temperature_celsius',
    help: 'GPU temperature, degrees Celsius',
    value: (g) => g.tempC,
  },
  { name: 'panoptes_gpu_power_watts', help: 'GPU power draw, watts', value: (g) => g.powerW },
];

/** How many GPU families there are. */
export const GPU_FAMILY_COUNT = GPU_FAMILIES.length;

/** The GPUs of the machines that have some, with each GPU's label set. */
export interface GpuRows {
  labels: string[];
  gpus: GpuUse[];
}

/** An empty set of GPU rows, filled by copyGpus. */
export function newGpuRows(): GpuRows {
  return { labels: [], gpus: [] };
}

/**
 * Adds the GPUs of one machine (its metrics keep at most GPUS_KEPT, each index once): labels
 * `{name, gpu}`, `gpu` the tool's GPU index. The GPU objects are kept, not copied: a new
 * observation replaces a machine's metrics, it never changes them.
 */
export function copyGpus(rows: GpuRows, m: Readonly<Machine>): void {
  const gpus = m.metrics?.gpus;
  if (gpus === undefined || gpus.length === 0) return;
  const name = escapeLabel(m.name);
  for (const g of gpus) {
    rows.labels.push(`{name="${name}",gpu="${g.index}"}`);
    rows.gpus.push(g);
  }
}

/** A GPU family's HELP and TYPE lines. */
export function gpuFamilyHead(family: number): string {
  const f = GPU_FAMILIES[family];
  return f === undefined ? '' : `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} gauge\n`;
}

/** The samples of one GPU family for rows [from, to), one line each that has a value. */
export function gpuFamilyRows(
  rows: GpuRows,
  family: number,
  from = 0,
  to = rows.gpus.length,
): string {
  const f = GPU_FAMILIES[family];
  if (f === undefined) return '';
  let out = '';
  for (let i = from; i < to; i += 1) {
    const g = rows.gpus[i];
    const value = g === undefined ? null : f.value(g);
    if (value === null || !Number.isFinite(value)) continue;
    out += `${f.name}${rows.labels[i]} ${value}\n`;
  }
  return out;
}

/** Every GPU family of some machines at once (tests, small boards). */
export function formatGpuFamilies(machines: Iterable<Readonly<Machine>>): string {
  const rows = newGpuRows();
  for (const m of machines) copyGpus(rows, m);
  let text = '';
  for (let f = 0; f < GPU_FAMILY_COUNT; f += 1) text += gpuFamilyHead(f) + gpuFamilyRows(rows, f);
  return text;
}
