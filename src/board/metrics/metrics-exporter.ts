import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ChangeSet } from '../domain/change-set.js';
import type { JournalEntry } from '../schemas.js';
import { FAMILY_COUNT, formatFamily, snapshotMachines } from './machine-families.js';

/** The Prometheus text format's content type. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * GET /metrics, prepared once per change set (per sweep), not per scrape: the per-machine
 * families are written when a batch closes; the board's own counters and the process metrics
 * (prom-client) are small and read at each scrape.
 */
export class MetricsExporter {
  private readonly registry = new Registry();
  /** The per-machine families of the last finished preparation, as bytes. */
  private machineBytes: Buffer = Buffer.alloc(0);
  /** The change set being prepared now (a newer one replaces it). */
  private preparing = 0;
  private readonly sweepSeconds: Gauge;
  private readonly sweeps: Counter;
  private readonly machines: Gauge;
  private readonly reports: Counter;
  private readonly relays: Counter;
  private readonly notifications: Counter;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'panoptes_board_' });
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
   * A change set closed: the numbers are copied at once (fast), and the text of the families is
   * made one family per turn of the event loop, so no request waits for all 90,000 lines of
   * 10,000 machines; scrapes meanwhile get the previous sweep's text.
   */
  onChangeSet(set: ChangeSet): void {
    const snapshot = snapshotMachines(set.machines());
    const seq = set.seq;
    this.preparing = seq;
    const parts: Buffer[] = [];
    const step = (family: number): void => {
      if (this.preparing !== seq) return; // a newer set took over
      if (family === FAMILY_COUNT) {
        this.machineBytes = Buffer.concat(parts);
        return;
      }
      parts.push(Buffer.from(formatFamily(snapshot, family)));
      setImmediate(step, family + 1);
    };
    step(0);
    this.machines.set(set.size);
    this.sweeps.inc();
    if (set.sweepMs !== null) this.sweepSeconds.set(set.sweepMs / 1000);
    if (set.reports > 0) this.reports.inc(set.reports);
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
    const board = Buffer.from(await this.registry.metrics());
    return Buffer.concat([this.machineBytes, board]);
  }
}
