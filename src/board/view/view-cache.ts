import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import type { Selector } from '../../shared/selector.js';
import { inSlices } from '../../shared/slices.js';
import type { Machine } from '../domain/machine.js';
import type { BoardView, MachinePick, ViewLease } from '../domain/machine-memory.js';
import { recordBytes } from './machine-record.js';
import { ViewBuffers } from './view-buffers.js';

/** The pick of a label selector (GET /api/board?selector=). */
export function selectorPick(selector: Selector): MachinePick {
  return { text: selector.text, picks: (m) => selector.matches(m.labels, m.name) };
}

/**
 * The view's bytes, lent: `release` once they have been read to the end (written to the
 * socket), so that their memory can hold a later view. A lease never released only keeps that
 * memory from being used again.
 */

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');
/** Changes between sweeps are coalesced into one rebuild of the view per this many ms. */
export const VIEW_COALESCE_MS = 250;
/**
 * How long past the coalescing delay a GET still takes the bytes before a background refresh
 * under way, rather than rebuild itself: past it (a refresh stuck behind a busy loop) the GET
 * rebuilds at once, so the view is never more than this behind a report.
 */
const REFRESH_SLACK_MS = 250;
// A GET past the delay while the refresh is only scheduled (its timer late) rebuilds at once.
/**
 * A view no one has asked for in this long is given up, with every buffer kept for the next
 * at 15,000 machines the view and its spare are 54 MB of RSS, held for a GET that
 * may not come. The next GET rebuilds it at once (a copy of every machine's record, as after a
 * sweep), under the same ETag if no machine changed meanwhile.
 */
export const VIEW_IDLE_MS = 10_000;

/**
 * The board view (GET /api/board) as JSON bytes with its ETag, rebuilt on the board's clock:
 * after each sweep, and at once when a machine is added, removed or changes state; refreshes
 * (reports, the upkeep) are coalesced into one rebuild per VIEW_COALESCE_MS, so a flood of
 * reports never makes each GET copy the whole view again. While GETs keep coming, that
 * refresh is made in the background, in slices, when the coalescing delay ends (GETs meanwhile
 * get the bytes before it): a GET during a report flood then never waits for the records of
 * thousands of reports to be encoded and 27 MB copied. A GET after a quiet spell,
 * or after a forced change, rebuilds at once as before.
 */
export class ViewCache implements BoardView {
  private sortedNames: string[] | null = null;
  private cached: { bytes: Buffer; etag: string } | null = null;
  /** The bytes are older than the machines. */
  private dirty = true;
  /** The next get() rebuilds whatever the time. */
  private forced = true;
  private builtAt = Number.NEGATIVE_INFINITY;
  private generation = 0;
  private readonly epoch = Math.random().toString(36).slice(2, 10);
  private sweptAt: number | null = null;
  private sweepMs: number | null = null;
  /** The machines of the last get() (the registry's live map), for the background refresh. */
  private machines: ReadonlyMap<string, Machine> | null = null;
  /** A background refresh is scheduled or under way. */
  private refreshing = false;
  /** A background refresh is under way (its slices have started). */
  private inFlight = false;
  private readonly buffers = new ViewBuffers();
  /** When the view was last asked for (performance.now()), for the idle time. */
  private askedAt = 0;
  /** The memory GET /api/board?selector= answers are made in, used again once read. */
  private readonly selections = new ViewBuffers();
  private selectedAt = 0;
  /** The last selected view, given again while no machine changed (its selector's text, the change count). */
  private lastSelected: { text: string; changes: number; bytes: Buffer; etag: string } | null =
    null;
  private selectionTimer: ReturnType<typeof setTimeout> | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  /** The ETag of the view given up for being idle, while no machine has changed since. */
  private idleEtag: string | null = null;
  /** Bumped by every change: a selected view's ETag (it is made at each GET, from the machines as they are). */
  private changeCount = 0;

  constructor(
    private readonly clock: Clock,
    private readonly idleMs = VIEW_IDLE_MS,
  ) {}

  /** Something changed; `force`: show it at the next GET, not after the coalescing delay. */
  invalidate(force = false): void {
    this.changeCount += 1;
    this.dirty = true;
    this.idleEtag = null;
    if (force) this.forced = true;
  }

  /** The set of names changed (added or removed): sort again, rebuild at once. */
  namesChanged(): void {
    this.sortedNames = null;
    this.invalidate(true);
  }

  /**
   * A sweep ended: the view shows its polls at the next GET. A tick that polled nothing (a
   * board of announced machines only) changes only the sweep's time: it is refreshed as reports
   * are, without making the next GET rebuild 16 MB at once.
   */
  sweepFinished(startedAt: number, durationMs: number, polled = true): void {
    this.sweptAt = startedAt + durationMs;
    this.sweepMs = durationMs;
    this.invalidate(polled);
  }

  /** The view of `machines`, rebuilt only when due, lent until `release` is called. */
  get(machines: ReadonlyMap<string, Machine>): ViewLease {
    this.askedAt = performance.now();
    this.watchIdle();
    const { bytes, etag } = this.current(machines);
    return { bytes, etag, release: this.buffers.lend(bytes) };
  }

  private current(machines: ReadonlyMap<string, Machine>): { bytes: Buffer; etag: string } {
    this.machines = machines;
    const now = this.clock.now();
    if (this.cached !== null && !this.dirty) return this.cached;
    if (this.cached !== null && !this.forced) {
      this.scheduleRefresh(now);
      // Within the coalescing delay, as always; past it only while a refresh is under way.
      const age = now - this.builtAt;
      if (age < VIEW_COALESCE_MS) return this.cached;
      if (this.inFlight && age < VIEW_COALESCE_MS + REFRESH_SLACK_MS) return this.cached;
    }
    this.dirty = false;
    this.forced = false;
    this.builtAt = now;
    this.generation += 1;
    const view = this.writer(machines.size);
    for (const name of this.names(machines)) {
      const m = machines.get(name);
      if (m !== undefined) view.record(m);
    }
    const bytes = view.done();
    const built = { bytes, etag: this.idleEtag ?? `"${this.epoch}-${this.generation}"` };
    this.idleEtag = null;
    this.replace(built);
    return built;
  }

  select(machines: ReadonlyMap<string, Machine>, selector: Selector): ViewLease {
    return this.pick(machines, selectorPick(selector));
  }

  /** The view of the machines `pick` picks (a selector, a scope, or both), made now. */
  pick(machines: ReadonlyMap<string, Machine>, selector: MachinePick): ViewLease {
    this.selectedAt = performance.now();
    this.watchSelections();
    const last = this.lastSelected;
    if (last !== null && last.text === selector.text && last.changes === this.changeCount)
      return { bytes: last.bytes, etag: last.etag, release: this.selections.lend(last.bytes) };
    const head = this.head();
    const parts: Buffer[] = [];
    let length = head.length + CLOSE.length;
    for (const name of this.names(machines)) {
      const m = machines.get(name);
      if (m === undefined || !selector.picks(m)) continue;
      const record = recordBytes(m);
      parts.push(record);
      length += record.length + 1;
    }
    // Copied now, before a machine's next change can write over its record, into memory used
    // again once read: a new buffer per GET (2 MB for a tenth of 10,000 machines) cost more
    // than the records' selection, in page faults and the collections it brought on.
    const bytes = this.selections.take(length);
    let at = head.copy(bytes, 0);
    for (const [i, record] of parts.entries()) {
      if (i > 0) at += COMMA.copy(bytes, at);
      at += record.copy(bytes, at);
    }
    at += CLOSE.copy(bytes, at);
    const view = bytes.subarray(0, at);
    const release = this.selections.lend(view);
    // Kept until the next selection replaces it (then a spare once its readers are done).
    if (last !== null) this.selections.retire(last.bytes);
    const tag = createHash('sha256').update(selector.text).digest('base64url').slice(0, 12);
    const etag = `"${this.epoch}-c${this.changeCount}-${tag}"`;
    this.lastSelected = { text: selector.text, changes: this.changeCount, bytes: view, etag };
    return { bytes: view, etag, release };
  }

  /** Gives the selections' spare memory up once no selection has been asked for in `idleMs`. */
  private watchSelections(): void {
    if (this.selectionTimer !== null) return;
    this.selectionTimer = setTimeout(
      () => {
        this.selectionTimer = null;
        if (performance.now() - this.selectedAt < this.idleMs) this.watchSelections();
        else {
          if (this.lastSelected !== null) this.selections.retire(this.lastSelected.bytes);
          this.lastSelected = null;
          this.selections.giveUp();
        }
      },
      Math.max(0, this.selectedAt + this.idleMs - performance.now()),
    );
    this.selectionTimer.unref?.();
  }

  /** Gives the view up once it has not been asked for in `idleMs` (checked from its last GET). */
  private watchIdle(): void {
    if (this.idleTimer !== null) return;
    this.idleTimer = setTimeout(
      () => {
        this.idleTimer = null;
        if (performance.now() - this.askedAt < this.idleMs) this.watchIdle();
        else this.giveUp();
      },
      Math.max(0, this.askedAt + this.idleMs - performance.now()),
    );
    // Giving memory up does not keep a board that is shutting down alive.
    this.idleTimer.unref?.();
  }

  /**
   * Drops the view and every buffer kept for the next one (a reader still writing it keeps it
   * until done); the next GET rebuilds at once, a background refresh meanwhile gives up.
   */
  private giveUp(): void {
    if (this.cached === null) return;
    if (!this.dirty) this.idleEtag = this.cached.etag;
    this.buffers.retire(this.cached.bytes);
    this.buffers.giveUp();
    this.cached = null;
    this.forced = true;
  }

  /** The refresh of a dirty view, when the coalescing delay since the last build ends. */
  private scheduleRefresh(now: number): void {
    if (this.refreshing) return;
    this.refreshing = true;
    const timer = setTimeout(
      () => {
        this.inFlight = true;
        this.refresh()
          .catch(() => undefined)
          .finally(() => {
            this.inFlight = false;
            this.refreshing = false;
          });
      },
      Math.max(0, this.builtAt + VIEW_COALESCE_MS - now),
    );
    timer.unref?.();
  }

  /**
   * Rebuilds the view in slices of a few ms (each machine's record encoded if it changed and
   * copied into the view's buffer). A forced rebuild meanwhile (a GET after a machine was
   * added, removed or changed state) wins: this one is dropped.
   */
  private async refresh(): Promise<void> {
    const machines = this.machines;
    if (machines === null || !this.dirty || this.forced) return;
    // Memory for it: a spare, once a slow reader of an older view has finished, rather than
    // a fourth buffer of the view's size (view-buffers.ts); past the wait, new memory.
    await this.buffers.whenFree(this.estimate(machines.size), REFRESH_SLACK_MS / 2);
    if (this.machines !== machines || !this.dirty || this.forced) return;
    const generation = this.generation;
    const started = this.clock.now();
    this.dirty = false;
    const view = this.writer(machines.size);
    // Each record is copied in the slice that makes it: its bytes are written over by the
    // machine's next change (machine-record.ts), which may come between two slices.
    await inSlices(this.names(machines), (name) => {
      const m = machines.get(name);
      if (m !== undefined) view.record(m);
    });
    if (this.generation !== generation || this.forced) {
      this.buffers.retire(view.bytes);
      return;
    }
    const bytes = view.done();
    this.generation += 1;
    this.builtAt = started;
    this.replace({ bytes, etag: `"${this.epoch}-${this.generation}"` });
  }

  /** A writer of the view of `count` machines, in memory the size of the last view (or more). */
  private writer(count: number): ViewWriter {
    return new ViewWriter(this.buffers, this.head(), this.estimate(count));
  }

  /** The bytes a view of `count` machines is given room for: the last view's and some. */
  private estimate(count: number): number {
    const last = this.cached?.bytes.length ?? 0;
    return (last > 0 ? last + (last >>> 4) : count * 2048) + 65536;
  }

  /** The new view; the memory of the one before is used again once its readers are done. */
  private replace(next: { bytes: Buffer; etag: string }): void {
    if (this.cached !== null) this.buffers.retire(this.cached.bytes);
    this.cached = next;
  }

  /** The view's first bytes (its sweep figures, and the opening of its list). */
  private head(): Buffer {
    // One copy of each machine's bytes, encoded once per change of that machine: rebuilding
    // the view of 10,000 machines is then one memcpy, not a join and a UTF-8 encode of it all.
    const head = JSON.stringify({
      swept_at: this.sweptAt === null ? null : new Date(this.sweptAt).toISOString(),
      sweep_ms: this.sweepMs,
    }).slice(0, -1);
    return Buffer.from(`${head},"machines":[`);
  }

  private names(machines: ReadonlyMap<string, Machine>): string[] {
    this.sortedNames ??= [...machines.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return this.sortedNames;
  }
}

/** The view's bytes, written as its records come, in memory lent by ViewBuffers. */
class ViewWriter {
  bytes: Buffer;
  private at = 0;
  private first = true;

  constructor(
    private readonly buffers: ViewBuffers,
    head: Buffer,
    estimate: number,
  ) {
    this.bytes = buffers.take(Math.max(estimate, head.length));
    this.put(head);
  }

  /** Appends the machine's record (made now if it changed). */
  record(m: Machine): void {
    if (!this.first) this.put(COMMA);
    this.first = false;
    this.put(recordBytes(m));
  }

  /** The whole view. */
  done(): Buffer {
    this.put(CLOSE);
    return this.bytes.subarray(0, this.at);
  }

  private put(part: Buffer): void {
    if (this.at + part.length > this.bytes.length) {
      // Larger than the estimate (the fleet grew): a larger buffer, the bytes so far copied.
      const grown = this.buffers.take(Math.ceil((this.at + part.length) * 1.5));
      this.bytes.copy(grown, 0, 0, this.at);
      this.buffers.retire(this.bytes);
      this.bytes = grown;
    }
    this.at += part.copy(this.bytes, this.at);
  }
}
