import type { Machine } from '../domain/machine.js';

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
];

/**
 * The per-machine gauges in the Prometheus text format (0.0.4), written once per sweep.
 * prom-client takes about a second to set and several to format the 90,000 labelled series of
 * 10,000 machines (measured here), so these families are written by this loop; prom-client
 * keeps the board's own metrics and the process metrics. Names and origins need no escaping
 * (names match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$), but are escaped all the same.
 */
export function formatMachineFamilies(machines: Iterable<Readonly<Machine>>): string {
  const list = [...machines];
  const labels = list.map((m) => `{name="${escapeLabel(m.name)}",origin="${m.origin}"}`);
  const out: string[] = [];
  for (const f of FAMILIES) {
    const name = `panoptes_machine_${f.name}`;
    out.push(`# HELP ${name} ${f.help}\n# TYPE ${name} gauge\n`);
    for (let i = 0; i < list.length; i += 1) {
      const m = list[i];
      if (m === undefined) continue;
      const value = f.value(m);
      if (value === null || !Number.isFinite(value)) continue;
      out.push(`${name}${labels[i]} ${value}\n`);
    }
  }
  return out.join('');
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
