import type { Clock } from '../../shared/clock.js';
import type { CheckHistoryPort, CheckPoint, CheckSample } from '../checks/ports.js';
import {
  emptyMetricRecord,
  type HistoryStore,
  METRICS,
  type StateEvent,
  type UptimeTotals,
  type WriteBatch,
} from './history-store.js';
import { plan } from './query.js';
import type { HistorySettings } from './settings.js';
import { Aggregator } from './tiers.js';
import { shareOf, UPTIME_WINDOWS, type UptimeWindow, upMsWithin } from './uptime.js';

/**
 * A check's runner series lives in the machines' history under a name no machine can have
 * (machine and check names start with a letter or digit and hold no `:` or `/`): the tiers,
 * retention, pruning and both engines serve checks as they serve machines. Every listing of
 * machines leaves these names out (isCheckSeries).
 */
export const CHECK_SERIES_PREFIX = 'check:';

/** The series of one runner of one check. */
export function checkSeries(check: string, runner: string): string {
  return `${CHECK_SERIES_PREFIX}${check}/${runner}`;
}

/** Whether a history name is a check's series (never a machine's). */
export function isCheckSeries(name: string): boolean {
  return name.startsWith(CHECK_SERIES_PREFIX);
}

/** The points of a chart: as GET /api/machines/{name}/history's default. */
const POINTS = 300;
/** A runner's state changes read for its uptime: a runner flapping more than this is cut. */
const EVENTS_MAX = 20_000;
/** How often the store's list of series is read again (other boards' runners, after a restart). */
const NAMES_MS = 10_000;
const LATENCY = METRICS.indexOf('latency_ms');
/** How long an uptime answered stays the answer (GET /api/uptime's is 10 s too). */
const UPTIME_CACHE_MS = 10_000;
/** Uptimes held at most (by check and window length); past it they are all computed again. */
const UPTIME_CACHE_MAX = 10_000;

/** The uptime ledger's windows by length: their uptime is read from its figures. */
const LEDGER_WINDOWS = new Map(
  Object.entries(UPTIME_WINDOWS).map(([w, ms]) => [ms, w as UptimeWindow] as const),
);

/** Where a check history hands its write batches (the recorder: one queue for the store). */
export interface BatchSink {
  enqueueBatch(batch: WriteBatch): void;
  /** Resolves once every batch handed so far is written (or failed). */
  settled(): Promise<void>;
}

/**
 * The checks' history (CheckHistoryPort): each result a raw row of its runner's series (`up` 1
 * or 0, `latency_ms` the response time of a good run), folded into the 5-minute and hourly
 * tiers, and each change of a runner's result (good to failed and back) a state change, from
 * which uptime is exact.
 */
export class CheckHistory implements CheckHistoryPort {
  private readonly aggregator = new Aggregator();
  /** The latest aggregation time (a late result folds into the open buckets). */
  private lastT = Number.NEGATIVE_INFINITY;
  /** Per series: whether its last result was good (since the board started). */
  private readonly lastOk = new Map<string, boolean>();
  /** Series recorded by this board since it started, by check. */
  private readonly known = new Map<string, Set<string>>();
  /** The store's series of each check and their uptime figures, as last read (NAMES_MS). */
  private names: { at: number; byCheck: Map<string, UptimeTotals[]> } | null = null;
  /** The read in progress: every caller of a moment waits for the same one. */
  private reading: Promise<void> | null = null;
  private readonly forgetting = new Set<string>();
  /** What was recorded since the last hand-over: one batch for all the results of a moment. */
  private pending: WriteBatch | null = null;
  /** Uptimes answered in the last few seconds, by check and window length. */
  private readonly uptimes = new Map<string, { at: number; value: number | null }>();

  constructor(
    private readonly store: HistoryStore,
    private readonly retention: HistorySettings,
    private readonly clock: Clock,
    private readonly sink: BatchSink,
    private readonly shared: () => boolean,
  ) {}

  record(samples: readonly CheckSample[]): void {
    if (samples.length === 0) return;
    if (this.pending === null) {
      this.pending = { samples: [], events: [], forget: [], cutoffs: this.cutoffs() };
      // Handed over once the current run of code is done: a report's results, or a sweep's
      // polls, make one batch rather than one each.
      setImmediate(() => this.hand());
    }
    const batch = this.pending;
    for (const s of samples) {
      const name = checkSeries(s.check, s.runner);
      this.forgetting.delete(s.check);
      const t = Math.floor(s.at / 1000);
      if (t > this.lastT) {
        batch.samples.push(...this.aggregator.advance(t));
        this.lastT = t;
      }
      const avg = emptyMetricRecord();
      avg.latency_ms = s.ok ? s.ms : null;
      const up = s.ok ? 1 : 0;
      batch.samples.push({ tier: 'raw', name, sample: { t, n: 1, up, avg, max: { ...avg } } });
      const values = new Float64Array(METRICS.length).fill(Number.NaN);
      if (avg.latency_ms !== null) values[LATENCY] = avg.latency_ms;
      this.aggregator.addRow(name, up, values, 0);
      const previous = this.lastOk.get(name);
      if (previous !== s.ok) {
        const state = s.ok ? 'up' : 'down';
        const before = previous === undefined ? null : previous ? 'up' : 'down';
        batch.events.push({ name, at: s.at, state, previous: before, reason: null });
        this.lastOk.set(name, s.ok);
      }
      let series = this.known.get(s.check);
      if (series === undefined) {
        series = new Set();
        this.known.set(s.check, series);
      }
      series.add(name);
    }
  }

  /** Resolves once every result recorded so far is written (or failed). */
  async settled(): Promise<void> {
    this.hand();
    await this.sink.settled();
  }

  /** Hands what was recorded to the sink. */
  private hand(): void {
    const batch = this.pending;
    this.pending = null;
    if (batch !== null) this.sink.enqueueBatch(batch);
  }

  async series(
    check: string,
    fromS: number,
    toS: number,
  ): Promise<{ runner: string; points: CheckPoint[] }[]> {
    const p = plan({ fromS, toS }, POINTS, this.retention, this.clock.now() / 1000);
    const out: { runner: string; points: CheckPoint[] }[] = [];
    for (const name of await this.seriesOf(check)) {
      const rows = await this.store.samples(name, p.tier, fromS, toS, p.stepS);
      if (rows.length === 0) continue;
      const points = rows.map((r) => ({ t: r.t, ok: r.up, ms: r.avg.latency_ms }));
      out.push({ runner: name.slice(name.lastIndexOf('/') + 1), points });
    }
    return out;
  }

  /**
   * The mean over the check's runners of the share of [fromMs, toMs] each saw it up (a runner
   * counted from its first result if that is later); null: no runner has a result by `toMs`.
   */
  async uptime(check: string, fromMs: number, toMs: number): Promise<number | null> {
    const now = this.clock.now();
    // A window of the uptime ledger ending now (the checks list's 24 h): from the figures read
    // for every series at once, never a read per check.
    const window = LEDGER_WINDOWS.get(toMs - fromMs);
    if (window !== undefined && Math.abs(now - toMs) < UPTIME_CACHE_MS) {
      await this.seriesOf(check);
      const shares: number[] = [];
      for (const t of this.names?.byCheck.get(check) ?? []) {
        const share = shareOf(t.upMs[window], t.firstSeen, fromMs, toMs);
        if (share !== null) shares.push(share);
      }
      return shares.length === 0 ? null : shares.reduce((a, b) => a + b, 0) / shares.length;
    }
    // Any other window (a chart's range) is counted from the runners' changes, and held a while.
    const key = `${check}\n${toMs - fromMs}`;
    const held = this.uptimes.get(key);
    if (held !== undefined && now >= held.at && now - held.at < UPTIME_CACHE_MS) return held.value;
    const value = await this.computeUptime(check, fromMs, toMs);
    if (this.uptimes.size > UPTIME_CACHE_MAX) this.uptimes.clear();
    this.uptimes.set(key, { at: now, value });
    return value;
  }

  private async computeUptime(check: string, fromMs: number, toMs: number): Promise<number | null> {
    const shares: number[] = [];
    for (const name of await this.seriesOf(check)) {
      const latest = await this.store.events(name, EVENTS_MAX);
      const events: StateEvent[] = latest.filter((e) => e.at <= toMs).reverse();
      const first = events[0];
      if (first === undefined) continue;
      // Cut at EVENTS_MAX: the oldest read is not the first seen, the window is counted whole.
      const firstSeen = latest.length < EVENTS_MAX ? first.at : fromMs;
      const share = shareOf(upMsWithin(events, fromMs, toMs), firstSeen, fromMs, toMs);
      if (share !== null) shares.push(share);
    }
    if (shares.length === 0) return null;
    return shares.reduce((a, b) => a + b, 0) / shares.length;
  }

  forgotten(check: string): void {
    const names = new Set(this.known.get(check));
    for (const t of this.names?.byCheck.get(check) ?? []) names.add(t.name);
    // Series another board wrote, or written before this board started, go too.
    this.forgetting.add(check);
    void this.seriesOf(check, true).then((all) => {
      for (const name of all) names.add(name);
      this.forget(check, [...names]);
    });
  }

  /** What waits and the open buckets as they stand, handed to the sink (at shutdown). */
  flush(): void {
    this.hand();
    const samples = this.aggregator.drain();
    if (samples.length > 0)
      this.sink.enqueueBatch({ samples, events: [], forget: [], cutoffs: this.cutoffs() });
  }

  private forget(check: string, names: string[]): void {
    // What was recorded before goes first, so that the forget takes it too.
    this.hand();
    for (const key of this.uptimes.keys())
      if (key.startsWith(`${check}\n`)) this.uptimes.delete(key);
    this.known.delete(check);
    this.names?.byCheck.delete(check);
    for (const name of names) {
      this.aggregator.forget(name);
      this.lastOk.delete(name);
    }
    if (names.length > 0)
      this.sink.enqueueBatch({ samples: [], events: [], forget: names, cutoffs: this.cutoffs() });
  }

  /** The series of a check: recorded here, or found in the store (read again every few s). */
  private async seriesOf(check: string, fresh = false): Promise<string[]> {
    if (this.forgetting.has(check) && !fresh) return [];
    const now = this.clock.now();
    if (fresh || this.names === null || now - this.names.at >= NAMES_MS || now < this.names.at) {
      this.reading ??= this.readNames(now).finally(() => {
        this.reading = null;
      });
      await this.reading;
    }
    const all = new Set([
      ...(this.names?.byCheck.get(check) ?? []).map((t) => t.name),
      ...(this.known.get(check) ?? []),
    ]);
    return [...all].sort();
  }

  private async readNames(now: number): Promise<void> {
    if (this.shared()) await this.store.refresh?.();
    const byCheck = new Map<string, UptimeTotals[]>();
    for (const t of await this.store.uptimeTotals(now)) {
      if (!isCheckSeries(t.name)) continue;
      const owner = t.name.slice(CHECK_SERIES_PREFIX.length, t.name.lastIndexOf('/'));
      let list = byCheck.get(owner);
      if (list === undefined) {
        list = [];
        byCheck.set(owner, list);
      }
      list.push(t);
    }
    this.names = { at: now, byCheck };
  }

  private cutoffs(): WriteBatch['cutoffs'] {
    const t = Math.floor(this.clock.now() / 1000);
    return {
      raw: t - this.retention.raw / 1000,
      m5: t - this.retention.m5 / 1000,
      h1: t - this.retention.h1 / 1000,
    };
  }
}
