import type { Selector } from '../../shared/selector.js';
import type { Machine } from './machine.js';
import type { MachineMetrics, SessionMark } from './metrics.js';

/** The board view's bytes lent to one reader: `release` once they have all been written. */
export interface ViewLease {
  bytes: Buffer;
  etag: string;
  release: () => void;
}

/** GET /api/board's bytes, rebuilt on the board's clock after changes (view/view-cache.ts). */
export interface BoardView {
  /** A change shows at the next rebuild; `force`: at the next get, whatever the time. */
  invalidate(force?: boolean): void;
  /** A machine came or went. */
  namesChanged(): void;
  sweepFinished(startedAt: number, durationMs: number, polled?: boolean): void;
  get(machines: ReadonlyMap<string, Machine>): ViewLease;
  /** The view of the machines `selector` selects, made now, lent until `release` is called. */
  select(machines: ReadonlyMap<string, Machine>, selector: Selector): ViewLease;
  /** The view of the machines `pick` picks (an actor's scope, a selector), made now, lent. */
  pick(machines: ReadonlyMap<string, Machine>, pick: MachinePick): ViewLease;
}

/**
 * Which machines a partial view holds (a selector, an actor's scope, or both); its `text` keys
 * the view's cache and ETag, so two picks with different texts never share a body.
 */
export interface MachinePick {
  readonly text: string;
  picks(m: Machine): boolean;
}

/**
 * How the machines' data is held in memory and written as bytes: the model says what a machine
 * is and when it changed, view/ (machineMemory) how it is kept. Given to the registry.
 */
export interface MachineMemory {
  /** Keeps `json` as the machine's overview. */
  keepOverview(machine: Machine, json: string | Uint8Array): void;
  /** The machine's last overview as UTF-8 JSON, or null: none yet. */
  overview(machine: Machine): Buffer | null;
  /** Keeps `metrics` as the machine's numbers. */
  keepMetrics(machine: Machine, metrics: MachineMetrics): void;
  /** The sessions to keep: `next`, with the parts equal to `previous` taken from it. */
  keptSessions(
    previous: readonly SessionMark[],
    next: readonly SessionMark[],
  ): readonly SessionMark[];
  /** The machine's record as the board view writes it (encoded once per change). */
  recordBytes(machine: Machine): Buffer;
  /** The board view of this registry. */
  view: BoardView;
}
