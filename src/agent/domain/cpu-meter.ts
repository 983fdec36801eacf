/** Cumulative CPU times of one core, as os.cpus() gives them (milliseconds). */
export interface CpuTimes {
  user: number;
  nice: number;
  sys: number;
  idle: number;
  irq: number;
}

interface Sample {
  busy: number;
  total: number;
}

function sum(cpus: readonly { times: CpuTimes }[]): Sample {
  let busy = 0;
  let total = 0;
  for (const { times } of cpus) {
    const all = times.user + times.nice + times.sys + times.idle + times.irq;
    busy += all - times.idle;
    total += all;
  }
  return { busy, total };
}

/**
 * The share of all CPUs busy, 0–1, between the previous reading and this one. Readings closer
 * together than `minWindowMs` of CPU time per core reuse the last value, so a burst of requests
 * does not report noise.
 */
export class CpuMeter {
  private previous: Sample;
  private last = 0;

  constructor(
    private readonly read: () => readonly { times: CpuTimes }[],
    private readonly minWindowMs = 250,
  ) {
    const cpus = read();
    this.previous = sum(cpus);
    // Until a second reading, the average since boot is the honest answer.
    this.last = clamp(this.previous.total > 0 ? this.previous.busy / this.previous.total : 0);
  }

  use(): number {
    const cpus = this.read();
    const now = sum(cpus);
    const total = now.total - this.previous.total;
    if (total < this.minWindowMs * Math.max(1, cpus.length)) return this.last;
    this.last = clamp((now.busy - this.previous.busy) / total);
    this.previous = now;
    return this.last;
  }
}

function clamp(x: number): number {
  if (!Number.isFinite(x)) return 0;
  return Math.min(1, Math.max(0, x));
}
