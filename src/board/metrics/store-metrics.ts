import { Gauge, Histogram, type Registry } from 'prom-client';
import type { StoreHealth } from '../store/store-health.js';

/** What /metrics reads about the store at each scrape. */
export interface StoreMetricsSource {
  engine: string;
  health: StoreHealth;
  /** Journal entries waiting for the store. */
  journalBuffered(): number;
  /** Raw history samples dropped while the store was behind or away, since the start. */
  historyDropped(): number;
}

/**
 * The store on /metrics: whether it writes (`panoptes_store_up`), how long its writes take
 * (`panoptes_store_write_seconds`), what waits for it and what was dropped.
 */
export function registerStoreMetrics(registry: Registry, source: StoreMetricsSource): void {
  const registers = [registry];
  new Gauge({
    name: 'panoptes_store_up',
    help: '1 while the store takes writes, 0 from a failed write until it works again',
    labelNames: ['engine'],
    registers,
    collect() {
      this.set({ engine: source.engine }, source.health.available ? 1 : 0);
    },
  });
  new Gauge({
    name: 'panoptes_store_failed_writes',
    help: 'writes refused or failed since the store last worked',
    registers,
    collect() {
      this.set(source.health.failedWrites);
    },
  });
  new Gauge({
    name: 'panoptes_store_journal_buffered',
    help: 'journal entries waiting for the store to be back',
    registers,
    collect() {
      this.set(source.journalBuffered());
    },
  });
  new Gauge({
    name: 'panoptes_store_history_dropped_samples',
    help: 'history samples dropped because the store was behind or away (since the start)',
    registers,
    collect() {
      this.set(source.historyDropped());
    },
  });
  const writes = new Histogram({
    name: 'panoptes_store_write_seconds',
    help: 'time of each write to the store that worked',
    labelNames: ['engine'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });
  source.health.onWrite = (seconds) => writes.observe({ engine: source.engine }, seconds);
}
