import type { Board, Machine } from '../api/types.js';

/**
 * The machines of the board, keyed by name. Changes from the live socket are collected and
 * applied once per animation frame, so a sweep that changes 1,000 machines renders once; a
 * machine message replaces exactly one entry, so only that machine's card renders again.
 */
export interface BoardStore {
  /** Increases with every applied change. */
  readonly version: number;
  readonly machines: ReadonlyMap<string, Machine>;
  /** Whether a whole board has been applied yet. */
  readonly loaded: boolean;
  subscribe(listener: () => void): () => void;
  /** `at`: when the change arrived (performance.now()), for the update measure. */
  replace(board: Board, at?: number): void;
  upsert(machine: Machine, at?: number): void;
  remove(name: string, at?: number): void;
}

/** Schedules `fn` before the next paint (or soon, where frames do not run). */
export type FrameScheduler = (fn: () => void) => void;

export const rafScheduler: FrameScheduler = (fn) => {
  window.requestAnimationFrame(() => fn());
};

/** Records, after the browser has painted, how long since `start` (for `npm run bench:ui`). */
function measureAfterPaint(name: string, start: number): void {
  window.requestAnimationFrame(() => {
    window.setTimeout(() => {
      performance.clearMeasures(name);
      performance.measure(name, { start, end: performance.now() });
    }, 0);
  });
}

export function createBoardStore(schedule: FrameScheduler = rafScheduler): BoardStore {
  let machines = new Map<string, Machine>();
  let version = 0;
  let loaded = false;
  let pendingBoard: Board | null = null;
  const pending = new Map<string, Machine | null>();
  let scheduled = false;
  let firstPendingAt = 0;
  const listeners = new Set<() => void>();

  const flush = (): void => {
    scheduled = false;
    const first = !loaded && pendingBoard !== null;
    if (pendingBoard !== null) {
      machines = new Map(pendingBoard.machines.map((m) => [m.name, m]));
      pendingBoard = null;
      loaded = true;
    }
    for (const [name, m] of pending) {
      if (m === null) machines.delete(name);
      else machines.set(name, m);
    }
    pending.clear();
    version += 1;
    for (const l of listeners) l();
    if (first) measureAfterPaint('panoptes:first-render', 0);
    else measureAfterPaint('panoptes:update', firstPendingAt);
  };

  const queue = (at: number): void => {
    if (scheduled) return;
    scheduled = true;
    firstPendingAt = at;
    schedule(flush);
  };

  return {
    get version() {
      return version;
    },
    get machines() {
      return machines;
    },
    get loaded() {
      return loaded;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    replace(board, at = performance.now()) {
      pendingBoard = board;
      pending.clear();
      queue(at);
    },
    upsert(machine, at = performance.now()) {
      pending.set(machine.name, machine);
      queue(at);
    },
    remove(name, at = performance.now()) {
      pending.set(name, null);
      queue(at);
    },
  };
}
