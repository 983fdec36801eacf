import { checkResultsOf, checksVersionOf } from '../../shared/checks/results-of.js';
import type { CheckResult } from '../../shared/checks/wire.js';
import type { Labels } from '../../shared/labels.js';
import { safeText } from '../../shared/wire/free-text.js';
import { type AgentSelf, agentSelfOf } from './agent-self.js';
import { labelsOf } from './machine-labels.js';
import {
  type ContainerUse,
  containersOf,
  containersPartial,
  netRate,
  type SmartUse,
  smartOf,
  tempMaxOf,
} from './machine-now.js';
import { nonNegative, num, ratio, record, unit } from './overview-values.js';

/** One disk's used share (0–1), by mount path. */
export interface DiskUse {
  path: string;
  ratio: number;
}

/** One GPU as the board keeps it (from the overview's `gpus`; a field it lacked is null). */
export interface GpuUse {
  /** The tool's GPU index. */
  index: number;
  name: string;
  /** Share busy, 0–1. */
  util: number | null;
  memUsedBytes: number | null;
  memTotalBytes: number | null;
  tempC: number | null;
  powerW: number | null;
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
  disks: readonly DiskUse[];
  /** Sessions whose latest bell asks for a person (attention or error). */
  bells: number;
  /** configured: the last poll's round trip; announced: null. */
  latencyMs: number | null;
  /** The busiest GPU's share busy, 0–1 (see busiestGpu); null without GPUs. */
  gpuUtil: number | null;
  /** The busiest GPU's memory used / total, 0–1. */
  gpuMem: number | null;
  /** Each GPU (at most GPUS_KEPT). */
  gpus: readonly GpuUse[];
  /** Bytes a second received and sent on every interface but loopback. */
  netRx: number | null;
  netTx: number | null;
  /** The hottest temperature sensor, °C. */
  tempMax: number | null;
  /** The containers (null: the overview listed none: no engine, or its read failed). */
  containers: readonly ContainerUse[] | null;
  /** The overview left some containers out: one not listed may still be there. */
  containersPartial: boolean;
  /** Each disk's health (null: smartctl was not read). */
  smart: readonly SmartUse[] | null;
}

export const DISKS_MAX = 32;
/** GPUs a machine's overview is read for (the agent sends at most 64). */
export const GPUS_KEPT = 16;
/** Sessions a machine's overview is read for (the agent keeps at most 200). */
export const SESSIONS_MAX = 200;
/** No GPUs: one list shared by every machine without them (a new one each report was kept). */
const NO_GPUS: readonly GpuUse[] = Object.freeze([]);

const EMPTY: MachineMetrics = {
  cpu: null,
  mem: null,
  memUsedBytes: null,
  load: null,
  disk: null,
  disks: [],
  bells: 0,
  latencyMs: null,
  gpuUtil: null,
  gpuMem: null,
  gpus: [],
  netRx: null,
  netTx: null,
  tempMax: null,
  containers: null,
  containersPartial: false,
  smart: null,
};

/** No numbers known (never observed, or down). */
export function emptyMetrics(): MachineMetrics {
  return { ...EMPTY, disks: [], gpus: [] };
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
      const path = typeof disk?.path === 'string' ? safeText(disk.path.slice(0, 200)) : null;
      if (path !== null && t !== null && u !== null && t > 0)
        disks.push({ path, ratio: ratio(u, t) });
    }
  }
  // Kept until the next overview: a list of its own length, not push's room for 17.
  const kept = disks.length === 0 ? disks : disks.slice();
  let disk: number | null = null;
  for (const d of kept) if (disk === null || d.ratio > disk) disk = d.ratio;
  const load = Array.isArray(overview.load) ? num(overview.load[0]) : null;
  const gpus = gpusOf(overview.gpus);
  const busiest = busiestGpu(gpus);
  // Each read once: a member an overview lacks is a lookup through its whole prototype chain.
  const net = overview.net;
  const containers = overview.containers;
  return {
    cpu: unit(num(overview.cpu_use)),
    mem: total !== null && used !== null && total > 0 ? ratio(used, total) : null,
    memUsedBytes: used,
    load,
    disk,
    disks: kept,
    bells: sessions.filter((s) => s.why === 'attention' || s.why === 'error').length,
    latencyMs,
    gpuUtil: busiest?.util ?? null,
    gpuMem: busiest === null ? null : memShare(busiest),
    gpus,
    netRx: net === undefined ? null : netRate(net, 'rx_bps'),
    netTx: net === undefined ? null : netRate(net, 'tx_bps'),
    tempMax: tempMaxOf(overview.temps),
    containers: containersOf(containers),
    containersPartial: containers !== undefined && containersPartial(overview),
    smart: smartOf(overview.smart),
  };
}

/** The well-formed GPUs of an overview's `gpus` (at most GPUS_KEPT; a bad field is null). */
export function gpusOf(value: unknown): readonly GpuUse[] {
  if (!Array.isArray(value)) return NO_GPUS;
  const out: GpuUse[] = [];
  const seen = new Set<number>();
  for (const g of value.slice(0, GPUS_KEPT)) {
    const v = record(g);
    const index = num(v?.index);
    // Without a whole index the GPU has no label; one index twice would be two series in one.
    if (v === null || index === null || !Number.isSafeInteger(index) || index < 0) continue;
    if (seen.has(index)) continue;
    seen.add(index);
    out.push({
      index,
      name: typeof v.name === 'string' ? safeText(v.name).slice(0, 200) : '',
      util: unit(num(v.util)),
      memUsedBytes: nonNegative(num(v.mem_used)),
      memTotalBytes: nonNegative(num(v.mem_total)),
      tempC: num(v.temp_c),
      powerW: nonNegative(num(v.power_w)),
    });
  }
  return out.length === 0 ? NO_GPUS : out;
}

/**
 * The busiest GPU: the highest `util`; among equals (or none known) the one whose memory is
 * fullest, then the first listed. Null without GPUs.
 */
export function busiestGpu(gpus: readonly GpuUse[]): GpuUse | null {
  let best: GpuUse | null = null;
  for (const g of gpus) {
    if (best === null) {
      best = g;
      continue;
    }
    const a = g.util ?? -1;
    const b = best.util ?? -1;
    if (a > b || (a === b && (memShare(g) ?? -1) > (memShare(best) ?? -1))) best = g;
  }
  return best;
}

function memShare(g: GpuUse): number | null {
  return g.memUsedBytes !== null && g.memTotalBytes !== null && g.memTotalBytes > 0
    ? ratio(g.memUsedBytes, g.memTotalBytes)
    : null;
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
  // Kept until the next overview: a list of its own length, not push's room for 17.
  return out.length === 0 ? out : out.slice();
}

/** Everything the board keeps of an overview: its text, its metrics and its sessions. */
export function prepareOverview<Json extends string | Uint8Array>(
  overview: Record<string, unknown>,
  json: Json,
  latencyMs: number | null,
): {
  json: Json;
  metrics: MachineMetrics;
  sessions: SessionMark[];
  agent: AgentSelf | null;
  labels: Labels;
  checks: CheckResult[] | null;
  checksVersion: string | undefined;
} {
  const sessions = sessionsOf(overview);
  const metrics = metricsOf(overview, latencyMs, sessions);
  return {
    json,
    metrics,
    sessions,
    agent: agentSelfOf(overview),
    labels: labelsOf(overview),
    checks: checkResultsOf(overview),
    checksVersion: checksVersionOf(overview),
  };
}
