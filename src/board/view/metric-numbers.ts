import type { ContainerUse, SmartUse } from '../domain/machine-now.js';
import type { DiskUse, GpuUse, MachineMetrics } from '../domain/metrics.js';
import { keptContainers, keptSmart } from './kept-containers.js';

/** The numbers' places in a machine's array. */
const CPU = 0;
const MEM = 1;
const MEM_USED = 2;
const LOAD = 3;
const DISK = 4;
const LATENCY = 5;
const GPU_UTIL = 6;
const GPU_MEM = 7;
const NET_RX = 8;
const NET_TX = 9;
const TEMP_MAX = 10;
const PLACES = 11;

const NO_DISKS: readonly DiskUse[] = Object.freeze([]);
const NO_GPUS: readonly GpuUse[] = Object.freeze([]);

/**
 * A machine's metrics, kept in one place for the machine's life and written over by each poll
 * or report. A new metrics object per report, with a number object for
 * each of its fractions, lived until the machine's next report, seconds later: each outlived
 * the young generation and was copied and promoted, ~190 of the ~550 bytes a report left on the
 * heap (heap snapshots), and the scavenges that copy them set the TLS row's p99. Here the
 * numbers live in a Float64Array (NaN: unknown), written in place.
 *
 * It reads as MachineMetrics: every reader (history, rules, /metrics, the cluster's record)
 * reads it at once, in one turn of the event loop, and keeps numbers, not the object. So are
 * the disks' shares, while the machine has the same disks, and the containers' numbers, while
 * it runs the same containers in the same states (kept-containers.ts); a new list of disks or
 * containers, and the GPUs' list, replace the old one.
 */
export class MetricNumbers implements MachineMetrics {
  private readonly numbers = new Float64Array(PLACES).fill(Number.NaN);
  bells = 0;
  disks: readonly DiskUse[] = NO_DISKS;
  gpus: readonly GpuUse[] = NO_GPUS;
  containers: readonly ContainerUse[] | null = null;
  containersPartial = false;
  smart: readonly SmartUse[] | null = null;

  get cpu(): number | null {
    return this.read(CPU);
  }
  get mem(): number | null {
    return this.read(MEM);
  }
  get memUsedBytes(): number | null {
    return this.read(MEM_USED);
  }
  get load(): number | null {
    return this.read(LOAD);
  }
  get disk(): number | null {
    return this.read(DISK);
  }
  get latencyMs(): number | null {
    return this.read(LATENCY);
  }
  get gpuUtil(): number | null {
    return this.read(GPU_UTIL);
  }
  get gpuMem(): number | null {
    return this.read(GPU_MEM);
  }
  get netRx(): number | null {
    return this.read(NET_RX);
  }
  get netTx(): number | null {
    return this.read(NET_TX);
  }
  get tempMax(): number | null {
    return this.read(TEMP_MAX);
  }

  /**
   * Takes the metrics of a new overview (or, for a machine gone down, emptyMetrics()). The
   * disks stay the kept ones, their shares written over, while they are the same disks.
   */
  take(next: MachineMetrics): void {
    const n = this.numbers;
    n[CPU] = next.cpu ?? Number.NaN;
    n[MEM] = next.mem ?? Number.NaN;
    n[MEM_USED] = next.memUsedBytes ?? Number.NaN;
    n[LOAD] = next.load ?? Number.NaN;
    n[DISK] = next.disk ?? Number.NaN;
    n[LATENCY] = next.latencyMs ?? Number.NaN;
    n[GPU_UTIL] = next.gpuUtil ?? Number.NaN;
    n[GPU_MEM] = next.gpuMem ?? Number.NaN;
    n[NET_RX] = next.netRx ?? Number.NaN;
    n[NET_TX] = next.netTx ?? Number.NaN;
    n[TEMP_MAX] = next.tempMax ?? Number.NaN;
    this.bells = next.bells;
    this.disks = keptDisks(this.disks, next.disks);
    this.gpus = next.gpus.length === 0 ? NO_GPUS : next.gpus;
    this.containers = keptContainers(this.containers, next.containers);
    this.containersPartial = next.containersPartial;
    this.smart = keptSmart(this.smart, next.smart);
  }

  /** The numbers as a plain object (JSON.stringify calls this: the cluster's published record). */
  toJSON(): MachineMetrics {
    return {
      cpu: this.cpu,
      mem: this.mem,
      memUsedBytes: this.memUsedBytes,
      load: this.load,
      disk: this.disk,
      disks: this.disks,
      bells: this.bells,
      latencyMs: this.latencyMs,
      gpuUtil: this.gpuUtil,
      gpuMem: this.gpuMem,
      gpus: this.gpus,
      netRx: this.netRx,
      netTx: this.netTx,
      tempMax: this.tempMax,
      containers: this.containers,
      containersPartial: this.containersPartial,
      smart: this.smart,
    };
  }

  private read(place: number): number | null {
    const value = this.numbers[place] as number;
    return Number.isNaN(value) ? null : value;
  }
}

/**
 * Writes a machine's new metrics into the ones it keeps: in place when it keeps a MetricNumbers
 * (after its first overview, always); a machine without one yet gets one.
 */
export function keepMetrics(
  machine: { metrics: MachineMetrics | null },
  next: MachineMetrics,
): void {
  const kept = machine.metrics;
  if (kept instanceof MetricNumbers) kept.take(next);
  else {
    const fresh = new MetricNumbers();
    fresh.take(next);
    machine.metrics = fresh;
  }
}

/**
 * The disks to keep: when the new ones are the kept ones (same paths, same order), their
 * shares are written into the kept ones and the kept list stays; otherwise the new list.
 */
function keptDisks(before: readonly DiskUse[], now: readonly DiskUse[]): readonly DiskUse[] {
  if (now.length === 0) return NO_DISKS;
  if (before.length !== now.length) return now;
  for (let i = 0; i < now.length; i++)
    if ((before[i] as DiskUse).path !== (now[i] as DiskUse).path) return now;
  for (let i = 0; i < now.length; i++) (before[i] as DiskUse).ratio = (now[i] as DiskUse).ratio;
  return before;
}
