import type { Clock } from '../../shared/clock.js';
import type { ChangeSet } from '../domain/change-set.js';
import { CheckHistory, isCheckSeries } from './check-history.js';
import type { HistoryStore, MetricName } from './history-store.js';
import { plan, type RangeName, toSeries, type Window } from './query.js';
import { HistoryRecorder } from './recorder.js';
import type { HistorySettings } from './settings.js';
import { type UptimeWindow, uptimeOf } from './uptime.js';

/** GET /api/machines/{name}/history, before it is serialised. */
export interface HistoryAnswer {
  name: string;
  range: RangeName | 'custom';
  step_s: number;
  series: { t: number[]; up: (number | null)[] } & Record<MetricName, (number | null)[]>;
  max: Record<MetricName, (number | null)[]>;
}

/** One state change as GET /api/machines/{name}/events lists it. */
export interface EventView {
  at: string;
  state: 'up' | 'down';
  previous: 'up' | 'down' | null;
  reason: string | null;
  duration_s: number | null;
}

export type UptimeRow = { name: string } & Record<UptimeWindow, number | null>;

/** /api/uptime is computed at most this often (the UI asks once a minute). */
const UPTIME_CACHE_MS = 10_000;
/** Of several boards: how often a name unknown here makes this board read the store's again. */
const REFRESH_MS = 5000;

/** How a history reports its writes, and what it knows of other boards. */
export interface HistoryOptions {
  /** A write failed. */
  onError: (error: unknown) => void;
  /** A batch was written. */
  onWritten?: () => void;
  /** Resolves when a failed batch may be tried again (the store is back); absent: it is lost. */
  whenBack?: (() => Promise<void>) | null;
  /** Whether other boards write this store too (of several: see Ownership). Absent: none do. */
  shared?: () => boolean;
}

/** The board's history: records change sets into a store and answers the history API. */
export class History {
  readonly recorder: HistoryRecorder;
  /** The checks' history, in this store under names no machine has. */
  readonly checks: CheckHistory;
  private uptimeCache: { at: number; rows: Map<string, UptimeRow> } | null = null;
  /** Forgotten names whose forgetting is not written yet: they answer 404 already. */
  private readonly forgetting = new Set<string>();
  /** Whether other boards write this store too. */
  private readonly shared: () => boolean;
  private refreshedAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly store: HistoryStore,
    readonly retention: HistorySettings,
    private readonly clock: Clock,
    options: HistoryOptions,
  ) {
    const { onError, onWritten = () => undefined, whenBack = null } = options;
    this.shared = options.shared ?? (() => false);
    this.recorder = new HistoryRecorder(
      store,
      retention,
      onError,
      (batch) => {
        for (const name of batch.forget) this.forgetting.delete(name);
        onWritten();
      },
      whenBack,
    );
    this.checks = new CheckHistory(store, retention, clock, this.recorder, this.shared);
  }

  /** Now, in epoch seconds, on the board's clock. */
  nowS(): number {
    return this.clock.now() / 1000;
  }

  /** A machine was forgotten: its history is gone for readers at once (the write follows). */
  forgotten(name: string): void {
    this.forgetting.add(name);
    this.uptimeCache = null;
  }

  /** The change set listener. */
  readonly record = (set: ChangeSet): void => {
    this.recorder.record(set);
  };

  /** Whether the store holds history for the name. */
  async has(name: string): Promise<boolean> {
    if (this.forgetting.has(name) || isCheckSeries(name)) return false;
    await this.knowOthers(name);
    return this.store.has(name);
  }

  /** Of several boards: a machine another board recorded is read from the store first. */
  private async knowOthers(name: string): Promise<void> {
    if (!this.shared() || (await this.store.has(name))) return;
    // At most every few seconds: a name no board has must not make each request read the store.
    const now = this.clock.now();
    if (now - this.refreshedAt < REFRESH_MS && now >= this.refreshedAt) return;
    this.refreshedAt = now;
    await this.store.refresh?.();
  }

  /** A machine's series over a window, from the tier that fills `points`. */
  async series(
    name: string,
    range: RangeName | 'custom',
    window: Window,
    points: number,
  ): Promise<HistoryAnswer> {
    const p = plan(window, points, this.retention, this.clock.now() / 1000);
    await this.knowOthers(name);
    const rows = await this.store.samples(name, p.tier, window.fromS, window.toS, p.stepS);
    const s = toSeries(rows, window, p);
    return {
      name,
      range,
      step_s: p.stepS,
      series: { t: s.t, up: s.up, ...s.avg },
      max: s.max,
    };
  }

  /** A machine's latest state changes, most recent first, with how long the previous state lasted. */
  async events(name: string, limit: number): Promise<EventView[]> {
    await this.knowOthers(name);
    const events = await this.store.events(name, limit + 1);
    return events.slice(0, limit).map((e, i) => {
      const before = events[i + 1];
      return {
        at: new Date(e.at).toISOString(),
        state: e.state,
        previous: e.previous,
        reason: e.reason,
        duration_s: e.previous === null || before === undefined ? null : (e.at - before.at) / 1000,
      };
    });
  }

  /** Uptime over 24 h, 7 d and 30 d of every machine with history and every name given. */
  async uptime(names: Iterable<string>): Promise<UptimeRow[]> {
    const now = this.clock.now();
    if (
      this.uptimeCache === null ||
      now - this.uptimeCache.at >= UPTIME_CACHE_MS ||
      now < this.uptimeCache.at
    ) {
      const rows = new Map<string, UptimeRow>();
      // Of several boards, the others wrote the history of the machines they own.
      if (this.shared()) await this.store.refresh?.();
      for (const totals of await this.store.uptimeTotals(now)) {
        // A check's series (check-history.ts) is no machine.
        if (isCheckSeries(totals.name)) continue;
        rows.set(totals.name, { name: totals.name, ...uptimeOf(totals, now) });
      }
      this.uptimeCache = { at: now, rows };
    }
    const rows = this.uptimeCache.rows;
    const out = [...rows.values()].filter((r) => !this.forgetting.has(r.name));
    const known = out.length;
    for (const name of names)
      if (!rows.has(name)) out.push({ name, '24h': null, '7d': null, '30d': null });
    // The store answers by name: sort again only if names without history were added.
    if (out.length === known) return out;
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Writes what waits and the open aggregate buckets, then closes the store. */
  async close(): Promise<void> {
    const t = Math.floor(this.clock.now() / 1000);
    this.checks.flush();
    await this.recorder.flush({
      raw: t - this.retention.raw / 1000,
      m5: t - this.retention.m5 / 1000,
      h1: t - this.retention.h1 / 1000,
    });
    await this.store.close();
  }
}
