import { type Labels, NO_LABELS } from '../../shared/labels.js';
import { safeText } from '../../shared/wire/free-text.js';
import type { Overview } from '../../shared/wire/overview.js';
import type { Bells } from './bells.js';
import type { Clock } from './clock.js';
import { CpuMeter, type CpuTimes } from './cpu-meter.js';
import type { Services } from './services.js';

/** One mounted filesystem's space, in bytes. */
export interface DiskSpace {
  path: string;
  total: number;
  free: number;
  used: number;
}

/** What the operating system tells about the machine; injected so the domain stays testable. */
export interface SystemProbe {
  hostname(): string;
  platform(): string;
  arch(): string;
  uptimeS(): number;
  load(): number[];
  cpus(): readonly { times: CpuTimes }[];
  memory(): { total: number; free: number };
  disks(): Promise<DiskSpace[]>;
}

export interface OverviewDeps {
  name: string;
  version: string;
  probe: SystemProbe;
  services: Services;
  bells: Bells;
  clock: Clock;
  /** The background sources (GPUs, containers, …): each gives its last read's fields. */
  sources?: readonly { state(): Record<string, unknown> }[];
  /** The labels of the config now (a reload may change them); none: no `labels` in the overview. */
  labels?: () => Labels;
  /** What the agent says of itself for updates from the board (its file, checksum, outcome). */
  self?: () => Record<string, unknown>;
}

/** Assembles GET /api/overview from the OS, the services and the bells; never waits on a command
 * (service states and the sources come from caches filled in the background). */
export class OverviewSource {
  private readonly cpu: CpuMeter;

  constructor(private readonly deps: OverviewDeps) {
    this.cpu = new CpuMeter(() => deps.probe.cpus());
  }

  async overview(): Promise<Overview> {
    const { probe } = this.deps;
    const memory = probe.memory();
    const disks = await probe.disks();
    const overview: Overview = {
      name: this.deps.name,
      // What the OS says is cleaned to the one-line rule the board holds reports to.
      hostname: safeText(probe.hostname()).slice(0, 255),
      platform: safeText(probe.platform()).slice(0, 64),
      arch: safeText(probe.arch()).slice(0, 64),
      uptime_s: Math.max(0, probe.uptimeS()),
      load: probe.load(),
      cpus: probe.cpus().length,
      cpu_use: this.cpu.use(),
      memory: {
        total: memory.total,
        free: memory.free,
        used: Math.max(0, memory.total - memory.free),
      },
      disks: disks.map((d) => ({ ...d, path: safeText(d.path).slice(0, 4096) })),
      services: this.deps.services.views(),
      sessions: this.deps.bells.sessions(),
      version: this.deps.version,
      time: new Date(this.deps.clock.now()).toISOString(),
    };
    const labels = this.deps.labels?.() ?? NO_LABELS;
    // Absent when there are none: an agent without labels reports what it always did.
    if (Object.keys(labels).length > 0) overview.labels = { ...labels };
    for (const source of this.deps.sources ?? []) Object.assign(overview, source.state());
    if (this.deps.self !== undefined) Object.assign(overview, this.deps.self());
    return overview;
  }
}
