import type { Machine } from '../domain/machine.js';
import type { ContainerUse } from '../domain/machine-now.js';
import { escapeLabel } from './label-value.js';

/** One per-container family: its full name, help, and the value of a container (null: not known). */
interface ContainerFamily {
  name: string;
  help: string;
  value: (c: ContainerUse) => number | null;
}

const CONTAINER_FAMILIES: readonly ContainerFamily[] = [
  {
    name: 'panoptes_container_up',
    help: '1 when the container is running, 0 when not',
    value: (c) => (c.state === 'running' ? 1 : 0),
  },
  {
    name: 'panoptes_container_cpu',
    help: "share of all the machine's CPUs the container uses, 0-1",
    value: (c) => c.cpu,
  },
  {
    name: 'panoptes_container_mem_bytes',
    help: 'memory the container uses, bytes',
    value: (c) => c.memUsedBytes,
  },
];

/** How many container families there are. */
export const CONTAINER_FAMILY_COUNT = CONTAINER_FAMILIES.length;

/** The containers of the machines up that list some, with each container's label set. */
export interface ContainerRows {
  labels: string[];
  containers: ContainerUse[];
}

/** An empty set of container rows, filled by copyContainers. */
export function newContainerRows(): ContainerRows {
  return { labels: [], containers: [] };
}

/**
 * Adds the containers of one machine (each name once, at most CONTAINERS_MAX): labels
 * `{machine, container}`. The container objects are kept, not copied: a later overview may
 * write newer numbers into them (kept-containers.ts), which then show, never a mix of machines.
 */
export function copyContainers(rows: ContainerRows, m: Readonly<Machine>): void {
  const containers = m.metrics?.containers;
  if (containers === null || containers === undefined || containers.length === 0) return;
  const machine = escapeLabel(m.name);
  for (const c of containers) {
    rows.labels.push(`{machine="${machine}",container="${escapeLabel(c.name)}"}`);
    rows.containers.push(c);
  }
}

/** A container family's HELP and TYPE lines. */
export function containerFamilyHead(family: number): string {
  const f = CONTAINER_FAMILIES[family];
  return f === undefined ? '' : `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} gauge\n`;
}

/** The samples of one container family for rows [from, to), one line each that has a value. */
export function containerFamilyRows(
  rows: ContainerRows,
  family: number,
  from = 0,
  to = rows.containers.length,
): string {
  const f = CONTAINER_FAMILIES[family];
  if (f === undefined) return '';
  let out = '';
  for (let i = from; i < to; i += 1) {
    const c = rows.containers[i];
    const value = c === undefined ? null : f.value(c);
    if (value === null || !Number.isFinite(value)) continue;
    out += `${f.name}${rows.labels[i]} ${value}\n`;
  }
  return out;
}

/** Every container family of some machines at once (tests, small boards). */
export function formatContainerFamilies(machines: Iterable<Readonly<Machine>>): string {
  const rows = newContainerRows();
  for (const m of machines) copyContainers(rows, m);
  let text = '';
  for (let f = 0; f < CONTAINER_FAMILY_COUNT; f += 1)
    text += containerFamilyHead(f) + containerFamilyRows(rows, f);
  return text;
}
