import type { Machine } from '../domain/machine.js';
import { labelsHead, labelsRow } from './label-families.js';
import { escapeLabel } from './label-value.js';

/** One per-machine family: its name, help, and the value of a machine (null: no sample). */
interface Family {
  name: string;
  help: string;
  value: (m: Readonly<Machine>) => number | null;
}

const FAMILIES: readonly Family[] = [
  {
    name: 'up',
    help: '1 when the machine is up, 0 when down',
    value: (m) => (m.state === 'up' ? 1 : 0),
  },
  {
    name: 'late',
    help: '1 when an announced machine has not reported for twice its interval',
    value: (m) => (m.late ? 1 : 0),
  },
  { name: 'cpu_use', help: 'share of all CPUs busy, 0-1', value: (m) => m.metrics?.cpu ?? null },
  {
    name: 'memory_used_bytes',
    help: 'memory in use, bytes',
    value: (m) => m.metrics?.memUsedBytes ?? null,
  },
  { name: 'load1', help: '1-minute load average', value: (m) => m.metrics?.load ?? null },
  {
    name: 'disk_used_ratio',
    help: 'the largest used share among its disks, 0-1',
    value: (m) => m.metrics?.disk ?? null,
  },
  {
    name: 'last_seen_timestamp_seconds',
    help: 'time of the last good poll or report, seconds since the epoch',
    value: (m) => (m.lastSeen === null ? null : m.lastSeen / 1000),
  },
  {
    name: 'bells_waiting',
    help: 'sessions whose latest bell asks for a person (attention or error)',
    value: (m) => m.metrics?.bells ?? 0,
  },
  { name: 'queued_actions', help: 'actions queued for the machine', value: (m) => m.queued },
  {
    name: 'net_rx_bytes_per_second',
    help: 'bytes a second received on every interface but loopback',
    value: (m) => m.metrics?.netRx ?? null,
  },
  {
    name: 'net_tx_bytes_per_second',
    help: 'bytes a second sent on every interface but loopback',
    value: (m) => m.metrics?.netTx ?? null,
  },
  {
    name: 'temp_max_celsius',
    help: 'the hottest temperature sensor, degrees Celsius',
    value: (m) => m.metrics?.tempMax ?? null,
  },
];

/** The numbers of every machine at one moment: labels and one value per family (NaN: none). */
export interface MachineSnapshot {
  labels: string[];
  /** Each machine's panoptes_machine_labels sample. */
  labelRows: string[];
  /** FAMILIES.length values per machine, machine after machine. */
  values: Float64Array;
}

/** An empty snapshot for `count` machines, filled by copyMachine. */
export function newSnapshot(count: number): MachineSnapshot {
  return {
    labels: new Array<string>(count).fill(''),
    labelRows: new Array<string>(count).fill(''),
    values: new Float64Array(count * FAMILIES.length),
  };
}

/** Copies what the families need out of one live record, as machine `i` (fast: no text). */
export function copyMachine(snapshot: MachineSnapshot, m: Readonly<Machine>, i: number): void {
  snapshot.labels[i] = `{name="${escapeLabel(m.name)}",origin="${m.origin}"}`;
  snapshot.labelRows[i] = labelsRow(m.name, m.labels);
  for (let f = 0; f < FAMILIES.length; f += 1) {
    const value = FAMILIES[f]?.value(m) ?? null;
    snapshot.values[i * FAMILIES.length + f] =
      value === null || !Number.isFinite(value) ? Number.NaN : value;
  }
}

/** Copies every machine at once (tests, small boards). */
export function snapshotMachines(machines: Iterable<Readonly<Machine>>): MachineSnapshot {
  const list = [...machines];
  const snapshot = newSnapshot(list.length);
  for (let i = 0; i < list.length; i += 1) copyMachine(snapshot, list[i] as Machine, i);
  return snapshot;
}

/** A family's HELP and TYPE lines. */
export function familyHead(family: number): string {
  const f = FAMILIES[family];
  if (f === undefined) return '';
  const name = `panoptes_machine_${f.name}`;
  return `# HELP ${name} ${f.help}\n# TYPE ${name} gauge\n`;
}

/**
 * The samples of one family for machines [from, to) of a snapshot, one line each that has a
 * value, in the Prometheus text format (0.0.4). prom-client takes about a second to set and
 * several to format the 90,000 labelled series of 10,000 machines (measured here), so these
 * families are written by this loop; prom-client keeps the board's own and the process metrics.
 */
export function familyRows(
  snapshot: MachineSnapshot,
  family: number,
  from = 0,
  to = snapshot.labels.length,
): string {
  const f = FAMILIES[family];
  if (f === undefined) return '';
  const name = `panoptes_machine_${f.name}`;
  const { labels, values } = snapshot;
  let out = '';
  for (let i = from; i < to; i += 1) {
    const value = values[i * FAMILIES.length + family];
    if (value === undefined || Number.isNaN(value)) continue;
    out += `${name}${labels[i]} ${value}\n`;
  }
  return out;
}

/** One family's lines (HELP, TYPE and a sample per machine that has a value). */
export function formatFamily(snapshot: MachineSnapshot, family: number): string {
  return familyHead(family) + familyRows(snapshot, family);
}

/** How many families there are. */
export const FAMILY_COUNT = FAMILIES.length;

/** Every family of a snapshot at once (tests, small boards). */
export function formatMachineFamilies(machines: Iterable<Readonly<Machine>>): string {
  const snapshot = snapshotMachines(machines);
  let text = '';
  for (let f = 0; f < FAMILY_COUNT; f += 1) text += formatFamily(snapshot, f);
  return text + labelsHead() + labelRows(snapshot);
}

/** The panoptes_machine_labels samples of machines [from, to) of a snapshot. */
export function labelRows(
  snapshot: MachineSnapshot,
  from = 0,
  to = snapshot.labels.length,
): string {
  let out = '';
  for (let i = from; i < to; i += 1) out += snapshot.labelRows[i];
  return out;
}
