import type { StateEvent, UptimeTotals } from './history-store.js';
import { UPTIME_WINDOWS, type UptimeWindow, upMsWithin } from './uptime.js';

/** Where the ledger reads committed state changes when it needs more than it holds. */
export interface ChangeSource {
  /** Changes with from < at ≤ to, each machine's in order (machine id, at ms, up). */
  between(from: number, to: number): Iterable<readonly [number, number, boolean]>;
  /** Each machine's state in force at `at` (its last change at or before it). */
  stateAt(at: number): Iterable<readonly [number, boolean]>;
  /** One machine's changes, oldest first. */
  of(id: number): readonly (readonly [number, boolean])[];
}

/** The windows by number (arrays, not keyed objects: the read loops over 10,000 machines). */
const WINDOWS = Object.keys(UPTIME_WINDOWS) as UptimeWindow[];
const LENGTHS = WINDOWS.map((w) => UPTIME_WINDOWS[w]);
const W = [0, 1, 2] as const;
type Win = (typeof W)[number];
const LONGEST = Math.max(...LENGTHS);

/** A state change and the ms up from the machine's origin to it. */
interface Change {
  at: number;
  up: boolean;
  cum: number;
}

/**
 * A machine's running figures. `last` is its last change, `cum` the ms it was up from its origin
 * (when first seen, or the longest window's start at a rebuild) to it; `starts[w]` is the change
 * in force at window w's start, kept only while a later change exists (otherwise it is `last`).
 * The ms up to any time t after a change c and before the next is c.cum (+ t − c.at if up): no
 * figure moves as time passes, so a read touches only the machines whose changes it passes.
 */
interface Entry extends Change {
  starts: (Change | undefined)[];
}

/**
 * Exact ms up in each uptime window for every machine, kept as state changes are committed so
 * that a read does no work per change: memory per machine is constant (no list of changes), and
 * moving a window's start forward reads only the changes it passes (few: those of one
 * interval, 24 h, 7 d or 30 d ago). Anything out of order (a change older than a machine's
 * last, a clock that went back) rebuilds it from the store at the next read.
 */
export class UptimeLedger {
  private readonly entries = new Map<number, Entry>();
  /** Each window's start as of the last read (ms). */
  private readonly start: number[] = [0, 0, 0];
  private readAt = 0;
  private stale = true;

  constructor(private readonly source: ChangeSource) {}

  /** Reads the committed changes now (at start), so that the first read does not. */
  prime(now: number): void {
    this.rebuild(now);
  }

  /** A committed state change (each machine's in time order). */
  apply(id: number, at: number, up: boolean): void {
    if (this.stale) return;
    const e = this.entries.get(id);
    if (e === undefined) {
      this.entries.set(id, {
        at,
        up,
        cum: 0,
        starts: [undefined, undefined, undefined],
      });
      return;
    }
    if (at < e.at) {
      this.stale = true;
      return;
    }
    for (const w of W) {
      const s = this.start[w] ?? 0;
      if (e.at <= s && at > s) e.starts[w] = { at: e.at, up: e.up, cum: e.cum };
    }
    e.cum = upTo(e, at);
    e.at = at;
    e.up = up;
  }

  /** A machine forgotten or pruned. */
  drop(id: number): void {
    this.entries.delete(id);
  }

  /**
   * The ms each machine of `ids` was up in each window ending at `now` (null: not known, e.g.
   * no state change yet).
   */
  read(now: number, ids: Iterable<number>): Map<number, Record<UptimeWindow, number>> {
    if (this.stale || now < this.readAt) this.rebuild(now);
    for (const w of W) {
      const s = now - (LENGTHS[w] ?? 0);
      if (s > (this.start[w] ?? 0)) this.advance(w, s);
    }
    this.readAt = now;
    const out = new Map<number, Record<UptimeWindow, number>>();
    for (const id of ids) {
      const e = this.entries.get(id);
      if (e === undefined) continue;
      if (e.at > now) {
        // A change after `now` (a clock set back): this machine is counted from its changes.
        out.set(id, this.fromChanges(id, now));
        continue;
      }
      const up = upTo(e, now);
      out.set(id, {
        '24h': up - this.upAtStart(e, 0),
        '7d': up - this.upAtStart(e, 1),
        '30d': up - this.upAtStart(e, 2),
      });
    }
    return out;
  }

  /** Forgets everything and reads the machines' state at the longest window's start, then on. */
  private rebuild(now: number): void {
    this.entries.clear();
    this.stale = false;
    for (const w of W) this.start[w] = now - (LENGTHS[w] ?? 0);
    const origin = now - LONGEST;
    for (const [id, up] of this.source.stateAt(origin))
      this.entries.set(id, {
        at: origin,
        up,
        cum: 0,
        starts: [undefined, undefined, undefined],
      });
    for (const [id, at, up] of this.source.between(origin, Number.MAX_SAFE_INTEGER))
      this.apply(id, at, up);
    this.readAt = now;
  }

  /** Moves window w's start to `to`, walking the changes it passes (only those machines'). */
  private advance(w: Win, to: number): void {
    const from = this.start[w] ?? 0;
    let id = -1;
    let e: Entry | undefined;
    // The change in force as the walk goes (undefined: the machine was not seen yet).
    let held: Change | undefined;
    const close = () => {
      if (e !== undefined) e.starts[w] = e.at > to ? held : undefined;
    };
    for (const [m, at, up] of this.source.between(from, to)) {
      if (m !== id) {
        close();
        id = m;
        e = this.entries.get(m);
        held = e?.starts[w];
      }
      if (e === undefined) continue;
      held = { at, up, cum: held === undefined ? 0 : upTo(held, at) };
    }
    close();
    this.start[w] = to;
  }

  /** The ms up from the origin to window w's start. */
  private upAtStart(e: Entry, w: Win): number {
    const s = this.start[w] ?? 0;
    if (e.at <= s) return upTo(e, s);
    const held = e.starts[w];
    // No change kept at the start and a later one: the machine was first seen after it.
    return held === undefined ? 0 : upTo(held, s);
  }

  private fromChanges(id: number, now: number): Record<UptimeWindow, number> {
    const changes: StateEvent[] = this.source
      .of(id)
      .map(([at, up]) => ({ at, state: up ? 'up' : 'down', previous: null, reason: null }));
    const row = {} as Record<UptimeWindow, number>;
    for (const w of WINDOWS) row[w] = upMsWithin(changes, now - UPTIME_WINDOWS[w], now);
    return row;
  }
}

/** The ms up from the origin to `t`, t at or after the change c (and before the next). */
function upTo(c: Change, t: number): number {
  return c.cum + (c.up ? t - c.at : 0);
}

/** A store's machines (name → id) sorted by name, as `ledgerTotals` wants them. */
export function sortedByName(ids: ReadonlyMap<string, number>): [string, number][] {
  return [...ids].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The uptime figures of the machines seen at least once (a first state change), by name, read
 * from the ledger at `now`: what every engine's `uptimeTotals` answers.
 */
export function ledgerTotals(
  ledger: UptimeLedger,
  byName: readonly [string, number][],
  firstSeen: ReadonlyMap<number, number | null>,
  now: number,
): UptimeTotals[] {
  const seen = byName.filter(([, id]) => (firstSeen.get(id) ?? null) !== null);
  const totals = ledger.read(
    now,
    seen.map(([, id]) => id),
  );
  const out: UptimeTotals[] = [];
  for (const [name, id] of seen) {
    const upMs = totals.get(id);
    const first = firstSeen.get(id) ?? null;
    if (upMs !== undefined && first !== null) out.push({ name, firstSeen: first, upMs });
  }
  return out;
}
