import { BACKGROUND_SLICE_MS, inSlices } from '../../shared/slices.js';
import type { ChangeSet } from '../domain/change-set.js';
import type { Machine } from '../domain/machine.js';
import { mergeBatches } from './batch-merge.js';
import { type HistoryStore, METRICS, type MetricName, type WriteBatch } from './history-store.js';
import type { HistorySettings } from './settings.js';
import { Aggregator } from './tiers.js';

const place = (name: MetricName): number => METRICS.indexOf(name);
const CPU = place('cpu');
const MEM = place('mem');
const LOAD = place('load');
const DISK = place('disk');
const LATENCY = place('latency_ms');
const BELLS = place('bells');
const GPU_UTIL = place('gpu_util');
const GPU_MEM = place('gpu_mem');
const NET_RX = place('net_rx');
const NET_TX = place('net_tx');
const TEMP_MAX = place('temp_max');

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
    // The sweep's raw rows as columns (RawSweep): no object per machine.
    const m = METRICS.length;
    const names: string[] = [];
    const up = new Uint8Array(machines.length);
    const values = new Float64Array(machines.length * m).fill(Number.NaN);
    // A machine read a few ms after its set closed may show a report taken since: the sample
    // is then that newer one (the state changes above are the set's own, exact).
    await inSlices(
      machines,
      (machine) => {
        // A machine the board has not observed since it started has nothing to say yet.
        if (!machine.observed) return;
        const row = names.length;
        const at = row * m;
        const isUp = machine.state === 'up';
        const x = machine.metrics;
        if (isUp && x !== null) {
          values[at + CPU] = x.cpu ?? Number.NaN;
          values[at + MEM] = x.mem ?? Number.NaN;
          values[at + LOAD] = x.load ?? Number.NaN;
          values[at + DISK] = x.disk ?? Number.NaN;
          values[at + LATENCY] = x.latencyMs ?? Number.NaN;
          values[at + BELLS] = x.bells;
          values[at + GPU_UTIL] = x.gpuUtil ?? Number.NaN;
          values[at + GPU_MEM] = x.gpuMem ?? Number.NaN;
          values[at + NET_RX] = x.netRx ?? Number.NaN;
          values[at + NET_TX] = x.netTx ?? Number.NaN;
          values[at + TEMP_MAX] = x.tempMax ?? Number.NaN;
        }
        names.push(machine.name);
        up[row] = isUp ? 1 : 0;
        this.aggregator.addRow(machine.name, isUp ? 1 : 0, values, at);
      },
      BACKGROUND_SLICE_MS,
    );
    const rows = names.length;
    if (rows > 0)
      batch.sweeps = [{ t, names, up: up.subarray(0, rows), values: values.subarray(0, rows * m) }];
    this.enqueue(batch);
  }

  /** A batch made elsewhere (the checks' history): written in turn with the sweeps'. */
  enqueueBatch(batch: WriteBatch): void {
    this.enqueue(batch);
  }

  private enqueue(batch: WriteBatch): void {
    if (this.waiting === null) this.waiting = batch;
    else this.waiting = this.merge(this.waiting, batch);
    if (this.running === null) this.running = this.drain();
  }

  private merge(a: WriteBatch, b: WriteBatch): WriteBatch {
    const shed = { count: 0 };
    const merged = mergeBatches(a, b, WAITING_RAW_MAX, shed);
    this.shed += shed.count;
    this.shedTotal += shed.count;
    return merged;
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
        this.waiting = this.waiting === null ? batch : this.merge(batch, this.waiting);
        await this.whenBack();
      }
    }
    this.running = null;
  }
}
