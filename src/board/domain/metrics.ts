import { safeText } from '../../shared/wire/free-text.js';

/** One disk's used share (0–1), by mount path. */
export interface DiskUse {
  path: string;
  ratio: number;
}

/** A bell as a session rang it, as the overview lists it. */
export interface SessionMark {
  session: string;
  why: string;
  text: string;
  at: string;
}

/**
 * The numbers history records, rules test and /metrics exports, taken from an overview once,
 * when it arrives: nothing downstream parses overview JSON again.
 */
export interface MachineMetrics {
  /** Share of all CPUs busy, 0–1. */
  cpu: number | null;
  /** memory used / total, 0–1. */
  mem: number | null;
  memUsedBytes: number | null;
  /** 1-minute load average. */
  load: number | null;
  /** The largest used share among its disks, 0–1. */
  disk: number | null;
  /** Each disk (at most DISKS_MAX). */
  disks: DiskUse[];
  /** Sessions whose latest bell asks for a person (attention or error). */
  bells: number;
  /** configured: the last poll's round trip; announced: null. */
  latencyMs: number | null;
}

export const DISKS_MAX = 32;
/** Sessions a machine's overview is read for (the agent keeps at most 200). */
export const SESSIONS_MAX = 200;

const EMPTY: MachineMetrics = {
  cpu: null,
  mem: null,
  memUsedBytes: null,
  load: null,
  disk: null,
  disks: [],
  bells: 0,
  latencyMs: null,
};

/** No numbers known (never observed, or down). */
export function emptyMetrics(): MachineMetrics {
  return { ...EMPTY, disks: [] };
}

/** Reads the metrics out of an overview object (unknown shape: every field is checked). */
export function metricsOf(
  overview: Record<string, unknown>,
  latencyMs: number | null,
  sessions: readonly SessionMark[] = sessionsOf(overview),
): MachineMetrics {
  const memory = record(overview.memory);
  const total = num(memory?.total);
  const used = num(memory?.used);
  const disks: DiskUse[] = [];
  if (Array.isArray(overview.disks)) {
    for (const d of overview.disks.slice(0, DISKS_MAX)) {
      const disk = record(d);
      const t = num(disk?.total);
      const u = num(disk?.used);
      const path = typeof disk?.path === 'string' ? disk.path.slice(0, 200) : null;
      if (path !== null && t !== null && u !== null && t > 0)
        disks.push({ path, ratio: ratio(u, t) });
    }
  }
  let disk: number | null = null;
  for (const d of disks) if (disk === null || d.ratio > disk) disk = d.ratio;
  const load = Array.isArray(overview.load) ? num(overview.load[0]) : null;
  return {
    cpu: unit(num(overview.cpu_use)),
    mem: total !== null && used !== null && total > 0 ? ratio(used, total) : null,
    memUsedBytes: used,
    load,
    disk,
    disks,
    bells: sessions.filter((s) => s.why === 'attention' || s.why === 'error').length,
    latencyMs,
  };
}

/** The sessions an overview lists (well-formed ones, at most SESSIONS_MAX). */
export function sessionsOf(overview: Record<string, unknown>): SessionMark[] {
  if (!Array.isArray(overview.sessions)) return [];
  const out: SessionMark[] = [];
  for (const s of overview.sessions.slice(0, SESSIONS_MAX)) {
    const v = record(s);
    if (
      typeof v?.session === 'string' &&
      typeof v.why === 'string' &&
      typeof v.text === 'string' &&
      typeof v.at === 'string'
    ) {
      // An older or home-made agent may not refuse what the bell schema refuses: cleaned here.
      out.push({
        session: safeText(v.session),
        why: v.why,
        text: safeText(v.text, true),
        at: v.at,
      });
    }
  }
  return out;
}

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function unit(value: number | null): number | null {
  return value === null ? null : Math.min(1, Math.max(0, value));
}

function ratio(part: number, whole: number): number {
  return Math.min(1, Math.max(0, part / whole));
}

/** Everything the board keeps of an overview: its text, its metrics and its sessions. */
export function prepareOverview(
  overview: Record<string, unknown>,
  json: string,
  latencyMs: number | null,
): { json: string; metrics: MachineMetrics; sessions: SessionMark[] } {
  const sessions = sessionsOf(overview);
  return { json, metrics: metricsOf(overview, latencyMs, sessions), sessions };
}
