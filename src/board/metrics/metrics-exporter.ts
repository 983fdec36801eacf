import { Counter, Gauge, Registry } from 'prom-client';
import { inSlices } from '../../shared/slices.js';
import type { ChangeSet } from '../domain/change-set.js';
import type { Machine } from '../domain/machine.js';
import type { JournalEntry } from '../schemas.js';
import {
  CONTAINER_FAMILY_COUNT,
  type ContainerRows,
  containerFamilyHead,
  containerFamilyRows,
  copyContainers,
  newContainerRows,
} from './container-families.js';
import {
  copyGpus,
  GPU_FAMILY_COUNT,
  gpuFamilyHead,
  gpuFamilyRows,
  newGpuRows,
} from './gpu-families.js';
import { labelsHead } from './label-families.js';
import {
  copyMachine,
  FAMILY_COUNT,
  familyHead,
  familyRows,
  labelRows,
  newSnapshot,
} from './machine-families.js';
import { registerProcessMetrics } from './process-metrics.js';

/** Machines whose lines of one family are made in one piece (≈ 1 ms at 10,000). */
const ROWS_PER_PIECE = 1000;
/**
 * A board scraped within this long prepares each change set's text as the set closes (a
 * scrape then finds it ready); one nobody scrapes makes no text until it is asked for.
 */
export const SCRAPED_RECENTLY_MS = 120_000;

/** The Prometheus text format's content type. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * GET /metrics, prepared at most once per change set (per sweep), not per scrape: while
 * Prometheus scrapes the board, the per-machine families are written as each set closes (a
 * scrape gets the last finished text at once); a board nobody scrapes writes none until a scrape
 * comes, which then waits for the last set's text (made in slices). The board's own counters
 * and the process metrics (prom-client) are small and read at each scrape.
 */
export class MetricsExporter {
  private readonly registry = new Registry();
  /** The per-machine families of the last finished preparation, as bytes. */
  private machineBytes: Buffer = Buffer.alloc(0);
  /** The change set being prepared now (a newer one replaces it). */
  private preparing = 0;
  /** Change sets whose text was made (since the start). */
  preparedSets = 0;
  /** The change set whose text `machineBytes` is (-1: none yet). */
  private prepared = -1;
  /** The last change set, to prepare when it is asked for. */
  private latest: { seq: number; machines: readonly Readonly<Machine>[] } | null = null;
  /** The preparation under way, and its set. */
  private running: { seq: number; done: Promise<void> } | null = null;
  /** When the last scrape came (performance.now(); never: -Infinity). */
  private scrapedAt = Number.NEGATIVE_INFINITY;
  private readonly sweepSeconds: Gauge;
  private readonly sweeps: Counter;
  private readonly machines: Gauge;
  private readonly reports: Counter;
  private readonly relays: Counter;
  private readonly notifications: Counter;

  constructor(extra: (registry: Registry) => void = () => undefined) {
    registerProcessMetrics(this.registry);
    extra(this.registry);
    const registers = [this.registry];
    this.sweepSeconds = new Gauge({
      name: 'panoptes_sweep_duration_seconds',
      help: 'how long the last sweep took',
      registers,
    });
    this.sweeps = new Counter({
      name: 'panoptes_sweeps_total',
      help: 'sweeps (ticks) closed',
      registers,
    });
    this.machines = new Gauge({
      name: 'panoptes_machines',
      help: 'machines on the board',
      registers,
    });
    this.reports = new Counter({
      name: 'panoptes_reports_total',
      help: 'reports taken from announcing machines',
      registers,
    });
    this.relays = new Counter({
      name: 'panoptes_relays_total',
      help: 'actions asked of the board, by outcome (done, failed, refused, queued, delivered, expired)',
      labelNames: ['outcome'],
      registers,
    });
    this.notifications = new Counter({
      name: 'panoptes_notifications_total',
      help: 'notification deliveries by channel and outcome (delivered, failed, silenced)',
      labelNames: ['channel', 'outcome'],
      registers,
    });
  }

  /**
   * A change set closed: the machines' numbers are copied and their text made in slices of a
   * few ms (see inSlices), so no request waits for all 90,000 lines of 10,000 machines;
   * scrapes meanwhile get the previous set's text.
   */
  onChangeSet(set: ChangeSet): void {
    this.machines.set(set.size);
    this.sweeps.inc();
    if (set.sweepMs !== null) this.sweepSeconds.set(set.sweepMs / 1000);
    if (set.reports > 0) this.reports.inc(set.reports);
    this.latest = { seq: set.seq, machines: [...set.machines()] };
    if (performance.now() - this.scrapedAt < SCRAPED_RECENTLY_MS) void this.start();
  }

  /** Prepares the last set's text, unless that is done or under way; resolves when it ends. */
  private start(): Promise<void> {
    const latest = this.latest;
    if (latest === null || this.prepared === latest.seq) return Promise.resolve();
    if (this.running?.seq === latest.seq) return this.running.done;
    this.preparing = latest.seq;
    const done = this.prepare(latest.seq, latest.machines).catch(() => undefined);
    this.running = { seq: latest.seq, done };
    return done;
  }

  private async prepare(seq: number, machines: readonly Readonly<Machine>[]): Promise<void> {
    const snapshot = newSnapshot(machines.length);
    const gpus = newGpuRows();
    const containers = newContainerRows();
    await inSlices(machines, (m, i) => {
      copyMachine(snapshot, m, i);
      copyGpus(gpus, m);
      copyContainers(containers, m);
    });
    if (this.preparing !== seq) return; // a newer set took over: its preparation replaces this
    const pieces: (() => string)[] = [];
    for (let family = 0; family < FAMILY_COUNT; family += 1) {
      pieces.push(() => familyHead(family));
      for (let from = 0; from < machines.length; from += ROWS_PER_PIECE) {
        const to = Math.min(from + ROWS_PER_PIECE, machines.length);
        pieces.push(() => familyRows(snapshot, family, from, to));
      }
    }
    pieces.push(labelsHead);
    for (let from = 0; from < machines.length; from += ROWS_PER_PIECE) {
      const to = Math.min(from + ROWS_PER_PIECE, machines.length);
      pieces.push(() => labelRows(snapshot, from, to));
    }
    // Per GPU: only machines with GPUs have rows; a family without any has no lines at all.
    for (let family = 0; family < GPU_FAMILY_COUNT && gpus.gpus.length > 0; family += 1) {
      pieces.push(() => gpuFamilyHead(family));
      for (let from = 0; from < gpus.gpus.length; from += ROWS_PER_PIECE) {
        const to = Math.min(from + ROWS_PER_PIECE, gpus.gpus.length);
        pieces.push(() => gpuFamilyRows(gpus, family, from, to));
      }
    }
    containerPieces(containers, pieces);
    const parts: Buffer[] = [];
    await inSlices(pieces, (piece) => {
      if (this.preparing === seq) parts.push(Buffer.from(piece()));
    });
    if (this.preparing !== seq) return;
    this.machineBytes = Buffer.concat(parts);
    this.prepared = seq;
    this.preparedSets += 1;
  }

  /** A journal entry: actions and notification deliveries are counted by outcome. */
  onJournal(entry: JournalEntry): void {
    if (entry.op === 'do') this.relays.inc({ outcome: entry.outcome });
    else if (entry.op === 'notify') {
      this.notifications.inc({ channel: entry.target, outcome: entry.outcome });
    }
  }

  /** The exposition text of one scrape, as bytes. */
  async scrape(): Promise<Buffer> {
    const recently = performance.now() - this.scrapedAt < SCRAPED_RECENTLY_MS;
    this.scrapedAt = performance.now();
    // Scraped before: the last finished text, while the newest is being made. Not scraped for
    // a while (or ever): the last set's text, made now (a newer set arriving meanwhile makes
    // the scrape wait for that one instead, a few times at most).
    for (let tries = 0; tries < 3 && (!recently || this.prepared === -1); tries += 1) {
      const latest = this.latest;
      if (latest === null || this.prepared === latest.seq) break;
      await this.start();
    }
    if (recently) void this.start();
    const board = Buffer.from(await this.registry.metrics());
    return Buffer.concat([this.machineBytes, board]);
  }
}

/** The container families' pieces: none at all when no machine lists a container. */
function containerPieces(rows: ContainerRows, pieces: (() => string)[]): void {
  const count = rows.containers.length;
  for (let family = 0; family < CONTAINER_FAMILY_COUNT && count > 0; family += 1) {
    pieces.push(() => containerFamilyHead(family));
    for (let from = 0; from < count; from += ROWS_PER_PIECE) {
      const to = Math.min(from + ROWS_PER_PIECE, count);
      pieces.push(() => containerFamilyRows(rows, family, from, to));
    }
  }
}
