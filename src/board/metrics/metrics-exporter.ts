import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ChangeSet } from '../domain/change-set.js';
import type { JournalEntry } from '../schemas.js';
import { formatMachineFamilies } from './machine-families.js';

/** The Prometheus text format's content type. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * GET /metrics, prepared once per change set (per sweep), not per scrape: the per-machine
 * families are written when a batch closes; the board's own counters and the process metrics
 * (prom-client) are small and read at each scrape.
 */
export class MetricsExporter {
  private readonly registry = new Registry();
  private machineText = '';
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

  /** A change set closed: the per-machine families are written again. */
  onChangeSet(set: ChangeSet): void {
    this.machineText = formatMachineFamilies(set.machines());
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

  /** The exposition text of one scrape. */
  async scrape(): Promise<string> {
    return `${this.machineText}${await this.registry.metrics()}`;
  }
}
