import { safeText } from '../../shared/wire/free-text.js';
import { CONTAINERS_MAX, SMART_MAX, TEMPS_MAX } from '../../shared/wire/machine-now-limits.js';
import { nonNegative, num, record, unit } from './overview-values.js';

/** One container as the board keeps it: what /metrics and the container events need. */
export interface ContainerUse {
  name: string;
  /** running, exited, paused, restarting, created, dead, or unknown (anything else). */
  state: string;
  /** healthy, unhealthy, starting, or null without a health check. */
  health: string | null;
  /** Share of all CPUs, 0–1. */
  cpu: number | null;
  memUsedBytes: number | null;
}

/** One disk's health as smartctl judged it (null: it did not say). */
export interface SmartUse {
  device: string;
  passed: boolean | null;
}

/** What a container has against it: it ran and stopped (or went), or it turned unhealthy. */
export type ContainerProblem = 'stopped' | 'unhealthy';

/** A container in an open episode (a machine's `container_alerts`). */
export interface ContainerAlert {
  name: string;
  problem: ContainerProblem;
  /** ms since the epoch the episode began. */
  since: number;
  /** ms since the epoch it was no longer listed (removed); null while listed. */
  goneAt: number | null;
}

/** A disk whose SMART health check fails. */
export interface FailingDisk {
  device: string;
  /** ms since the epoch it began to fail. */
  since: number;
}

/** No containers listed, or no disks: one list shared by every machine (none is kept per report). */
export const NO_CONTAINERS: readonly ContainerUse[] = Object.freeze([]);
export const NO_SMART: readonly SmartUse[] = Object.freeze([]);

// The engine's words, as the board's own strings: a kept container holds no copy of them.
const STATES = ['running', 'exited', 'paused', 'restarting', 'created', 'dead'] as const;
const HEALTHS = ['healthy', 'unhealthy', 'starting'] as const;

function known<T extends string>(words: readonly T[], value: unknown): T | null {
  for (const w of words) if (w === value) return w;
  return null;
}

/**
 * The containers of an overview's `containers` (at most CONTAINERS_MAX, each name once), or null
 * when it has none: no engine on the machine, or its read failed (`containers_error`). Then
 * nothing is known of them, which is not the same as an engine that runs none.
 */
export function containersOf(value: unknown): readonly ContainerUse[] | null {
  if (!Array.isArray(value)) return null;
  if (value.length === 0) return NO_CONTAINERS;
  const out: ContainerUse[] = [];
  let names: Set<string> | null = null;
  for (let i = 0; i < value.length && i < CONTAINERS_MAX; i += 1) {
    const c = record(value[i]);
    if (c === null || typeof c.name !== 'string' || c.name === '') continue;
    const name = safeText(c.name.length > 255 ? c.name.slice(0, 255) : c.name);
    // One name once: it labels a series and keys an alert (the engine keeps names unique).
    names ??= new Set();
    if (names.has(name)) continue;
    names.add(name);
    out.push({
      name,
      state: known(STATES, c.state) ?? 'unknown',
      health: known(HEALTHS, c.health),
      cpu: unit(num(c.cpu)),
      memUsedBytes: nonNegative(num(c.mem_used)),
    });
  }
  return out.length === 0 ? NO_CONTAINERS : out;
}

/** Whether an overview left containers out (`containers_omitted`): one not listed may still run. */
export function containersPartial(overview: Record<string, unknown>): boolean {
  const omitted = num(overview.containers_omitted);
  return omitted !== null && omitted > 0;
}

/** The disks of an overview's `smart` (at most SMART_MAX, each device once), or null: none read. */
export function smartOf(value: unknown): readonly SmartUse[] | null {
  if (!Array.isArray(value)) return null;
  const out: SmartUse[] = [];
  for (let i = 0; i < value.length && i < SMART_MAX; i += 1) {
    const d = record(value[i]);
    if (d === null || typeof d.device !== 'string' || d.device === '') continue;
    const device = safeText(d.device.length > 255 ? d.device.slice(0, 255) : d.device);
    if (out.some((x) => x.device === device)) continue;
    out.push({ device, passed: typeof d.passed === 'boolean' ? d.passed : null });
  }
  return out.length === 0 ? NO_SMART : out;
}

/** The hottest of an overview's `temps` (°C), or null without one. */
export function tempMaxOf(value: unknown): number | null {
  if (!Array.isArray(value)) return null;
  let max: number | null = null;
  for (let i = 0; i < value.length && i < TEMPS_MAX; i += 1) {
    const c = num(record(value[i])?.c);
    if (c !== null && (max === null || c > max)) max = c;
  }
  return max;
}

/** One of the machine's network rates (bytes a second) in an overview's `net` (`rx_bps`, `tx_bps`). */
export function netRate(value: unknown, key: 'rx_bps' | 'tx_bps'): number | null {
  return nonNegative(num(record(value)?.[key]));
}

/** Whether two lists hold the same containers, in the same order, states and health. */
export function sameContainers(a: readonly ContainerUse[], b: readonly ContainerUse[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as ContainerUse;
    const y = b[i] as ContainerUse;
    if (x.name !== y.name || x.state !== y.state || x.health !== y.health) return false;
  }
  return true;
}
