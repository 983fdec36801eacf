import { safeText } from '../../../../shared/wire/free-text.js';
import type {
  Container,
  ContainerAlert,
  DiskHealth,
  MachineNow,
  Net,
  NetInterface,
  ProcessInfo,
  Temp,
} from './types.js';

// The wire's maxima (src/shared/wire/machine-now.ts), repeated here so the page does not bundle
// the schema library; what is over them is cut, never trusted to be small.
const CONTAINERS_MAX = 500;
const PROCESSES_MAX = 40;
const INTERFACES_MAX = 32;
const TEMPS_MAX = 64;
const SMART_MAX = 32;
const ALERTS_MAX = 500;
const ERROR_MAX = 200;

type Rec = Record<string, unknown>;

function isRecord(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function nonNegative(value: unknown): number | null {
  const n = num(value);
  return n === null ? null : Math.max(0, n);
}

function share(value: unknown): number | null {
  const n = num(value);
  return n === null ? null : Math.min(1, Math.max(0, n));
}

/** Text from the machine: one clean line, cut to `max`. */
function line(value: unknown, max: number): string | null {
  return typeof value === 'string' ? safeText(value).slice(0, max) : null;
}

function time(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  // Docker says "0001-01-01T00:00:00Z" for a container that never started.
  return Number.isNaN(ms) || ms <= 0 ? null : ms;
}

/** The well-formed items of a list (at most `max`), or null when it is not a list at all. */
function items<T>(value: unknown, max: number, read: (v: Rec) => T | null): T[] | null {
  if (!Array.isArray(value)) return null;
  const out: T[] = [];
  for (const v of value.slice(0, max)) {
    if (!isRecord(v)) continue;
    const item = read(v);
    if (item !== null) out.push(item);
  }
  return out;
}

function container(v: Rec): Container | null {
  const name = line(v.name, 255);
  const state = line(v.state, 32);
  if (name === null || name === '' || state === null) return null;
  return {
    name,
    id: line(v.id, 64) ?? '',
    image: line(v.image, 1024) ?? '',
    state,
    health: line(v.health, 32),
    startedAt: time(v.started_at),
    cpu: share(v.cpu),
    memUsed: nonNegative(v.mem_used),
    memLimit: nonNegative(v.mem_limit),
    restarts: Math.trunc(nonNegative(v.restarts) ?? 0),
  };
}

function processInfo(v: Rec): ProcessInfo | null {
  const pid = num(v.pid);
  const name = line(v.name, 64);
  if (pid === null || name === null) return null;
  return {
    pid,
    name,
    user: line(v.user, 64) ?? '',
    cpu: share(v.cpu) ?? 0,
    mem: nonNegative(v.mem) ?? 0,
  };
}

function netInterface(v: Rec): NetInterface | null {
  const name = line(v.name, 64);
  if (name === null) return null;
  return {
    name,
    rxBps: nonNegative(v.rx_bps),
    txBps: nonNegative(v.tx_bps),
    rxBytes: nonNegative(v.rx_bytes),
    txBytes: nonNegative(v.tx_bytes),
  };
}

function net(value: unknown): Net | null {
  if (!isRecord(value)) return null;
  return {
    rxBps: nonNegative(value.rx_bps),
    txBps: nonNegative(value.tx_bps),
    interfaces: items(value.interfaces, INTERFACES_MAX, netInterface) ?? [],
  };
}

function temp(v: Rec): Temp | null {
  const label = line(v.label, 128);
  const c = num(v.c);
  return label === null || c === null ? null : { label, c };
}

function disk(v: Rec): DiskHealth | null {
  const device = line(v.device, 255);
  if (device === null) return null;
  return {
    device,
    model: line(v.model, 255),
    passed: typeof v.passed === 'boolean' ? v.passed : null,
    tempC: num(v.temp_c),
    powerOnHours: nonNegative(v.power_on_hours),
  };
}

function error(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? safeText(value).slice(0, ERROR_MAX) : null;
}

/** An overview's containers, processes, network, temperatures and disk health. */
export function machineNow(o: Rec): MachineNow {
  return {
    containers: items(o.containers, CONTAINERS_MAX, container),
    containersError: error(o.containers_error),
    containersOmitted: Math.trunc(nonNegative(o.containers_omitted) ?? 0),
    processes: items(o.processes, PROCESSES_MAX, processInfo),
    processesError: error(o.processes_error),
    net: net(o.net),
    netError: error(o.net_error),
    temps: items(o.temps, TEMPS_MAX, temp),
    tempsError: error(o.temps_error),
    smart: items(o.smart, SMART_MAX, disk),
    smartError: error(o.smart_error),
  };
}

/** The machine record's `container_alerts`: what the board saw stop or turn unhealthy. */
export function containerAlerts(value: unknown): ContainerAlert[] {
  return (
    items(value, ALERTS_MAX, (v): ContainerAlert | null => {
      const name = line(v.name, 255);
      if (name === null || (v.problem !== 'stopped' && v.problem !== 'unhealthy')) return null;
      return { name, problem: v.problem };
    }) ?? []
  );
}
