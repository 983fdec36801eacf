import { inSlices } from '../../shared/slices.js';
import type { ChangeSet } from '../domain/change-set.js';
import type { Machine } from '../domain/machine.js';
import { emptyMetricRecord, type HistoryStore, type WriteBatch } from '../store/history-store.js';
import type { HistorySettings } from './settings.js';
import { Aggregator, rawSample } from './tiers.js';

/**
 * Raw samples waiting batches may hold (10 sweeps of 10,000 machines): past this the store is
 * behind or away, and the oldest waiting samples are dropped (counted) to make room.
 */
const WAITING_RAW_MAX = 100_000;
/** Tries of one batch while the store says it is back, before the batch is given up. */
const TRIES_MAX = 5;

/**
 * Turns each change set into one write batch: in the board's tick it only copies numbers
 * (the metrics were parsed when the overview arrived) and folds them into the open aggregate
 * buckets; the write itself runs later, one batch at a time. A batch that arrives while one is
 * being written waits, merged with any other that waits (so a slow disk delays, never stacks).
 */
export class HistoryRecorder {
  private readonly aggregator = new Aggregator();
  private waiting: WriteBatch | null = null;
  private running: Promise<void> | null = null;
  /** The change sets being read, one after the other. */
  private collecting: Promise<void> = Promise.resolve();
  /** Raw samples dropped because the store fell behind or was away (reported once per gap). */
  shed = 0;
  /** The same, since the start (for /metrics). */
  shedTotal = 0;
  private closing = false;

  constructor(
    private readonly store: HistoryStore,
    private readonly retention: HistorySettings,
    private readonly onError: (error: unknown) => void,
    private readonly onWritten: (batch: WriteBatch) => void = () => undefined,
    /**
     * Resolves when a failed batch may be tried again (the store is back). Without it a batch
     * that fails is lost; with it, the batch waits, merged with the sweeps that follow it.
     */
    private readonly whenBack: (() => Promise<void>) | null = null,
  ) {}

  /**
   * The change set listener: copies what the set carries for this moment (its state changes,
   * the names removed and the list of machines) and returns; the machines' numbers are read in
   * slices (see inSlices), so 10,000 of them never hold a request up. Sets are taken in order.
   */
  record(set: ChangeSet): void {
    const t = Math.floor(set.at / 1000);
    const events = set.transitions.map((x) => ({
      name: x.name,
      at: x.at,
      state: x.state,
      previous: x.previous,
      reason: x.reason,
    }));
    const removed = [...set.removed];
    const machines = [...set.machines()];
    this.collecting = this.collecting
      .then(() => this.collect(t, events, removed, machines))
      .catch(this.onError);
  }

  /** Writes what waits and the open buckets as they stand (at shutdown). */
  async flush(cutoffs: WriteBatch['cutoffs']): Promise<void> {
    await this.collecting;
    // At a stop nothing waits for a store that is away: what cannot be written now is lost.
    this.closing = true;
    this.enqueue({ samples: this.aggregator.drain(), events: [], forget: [], cutoffs });
    while (this.running !== null) await this.running;
  }

  /** Resolves once every batch handed so far is written (or failed). */
  async settled(): Promise<void> {
    await this.collecting;
    while (this.running !== null) await this.running;
  }

  private async collect(
    t: number,
    events: WriteBatch['events'],
    removed: string[],
    machines: readonly Readonly<Machine>[],
  ): Promise<void> {
    const batch: WriteBatch = {
      samples: this.aggregator.advance(t),
      events,
      forget: removed,
      cutoffs: {
        raw: t - this.retention.raw / 1000,
        m5: t - this.retention.m5 / 1000,
        h1: t - this.retention.h1 / 1000,
      },
    };
    for (const name of removed) this.aggregator.forget(name);
    // A machine read a few ms after its set closed may show a report taken since: the sample
    // is then that newer one (the state changes above are the set's own, exact).
    await inSlices(machines, (m) => {
      // A machine the board has not observed since it started has nothing to say yet.
      if (!m.observed) return;
      const values = emptyMetricRecord();
      const up = m.state === 'up';
      const x = m.metrics;
      if (up && x !== null) {
        values.cpu = x.cpu;
        values.mem = x.mem;
        values.load = x.load;
        values.disk = x.disk;
        values.latency_ms = x.latencyMs;
        values.bells = x.bells;
        values.gpu_util = x.gpuUtil;
        values.gpu_mem = x.gpuMem;
      }
      const sample = rawSample(t, up, values);
      batch.samples.push({ tier: 'raw', name: m.name, sample });
      this.aggregator.add(m.name, sample);
    });
    this.enqueue(batch);
  }

  private enqueue(batch: WriteBatch): void {
    if (this.waiting === null) this.waiting = batch;
    else this.waiting = merge(this.waiting, batch, this);
    if (this.running === null) this.running = this.drain();
  }

  private async drain(): Promise<void> {
    let tries = 0;
    while (this.waiting !== null) {
      const batch = this.waiting;
      this.waiting = null;
      try {
        await this.store.write(batch);
        tries = 0;
        this.onWritten(batch);
      } catch (error) {
        this.onError(error);
        tries += 1;
        if (this.whenBack === null || this.closing || tries >= TRIES_MAX) continue;
        // Kept: in front of what came since, written when the store is back.
        this.waiting = this.waiting === null ? batch : merge(batch, this.waiting, this);
        await this.whenBack();
      }
    }
    this.running = null;
  }
}

/**
 * One batch for two: the later forgets cancel the earlier's rows of those names. Past
 * WAITING_RAW_MAX raw samples the oldest raw samples go first (aggregates are kept: they fold
 * what the raw rows said, so the coarser tiers still cover the gap).
 */
function merge(a: WriteBatch, b: WriteBatch, recorder: HistoryRecorder): WriteBatch {
  const gone = new Set(b.forget);
  let samples = a.samples.filter((s) => !gone.has(s.name)).concat(b.samples);
  let raw = samples.reduce((n, s) => n + (s.tier === 'raw' ? 1 : 0), 0);
  if (raw > WAITING_RAW_MAX) {
    const kept: WriteBatch['samples'] = [];
    for (const s of samples) {
      if (s.tier === 'raw' && raw > WAITING_RAW_MAX) {
        raw -= 1;
        recorder.shed += 1;
        recorder.shedTotal += 1;
      } else kept.push(s);
    }
    samples = kept;
  }
  return {
    samples,
    events: a.events.filter((e) => !gone.has(e.name)).concat(b.events),
    forget: [...a.forget, ...b.forget],
    cutoffs: b.cutoffs,
  };
}
