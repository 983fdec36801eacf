import type { Logger } from '../shared/logger.js';
import type { BoardApp } from './app.js';
import { HEARTBEAT_MS } from './cluster/membership.js';
import { isStoreUnavailable } from './domain/store-unavailable.js';

/** The board's timers: the sweep loop (each sweep closes a change set), the upkeep tick and the heartbeat. */
export interface Scheduler {
  /** Starts sweeping if it was idle for want of configured machines (after a reload). */
  wake(): void;
  /** Stops starting new work and waits for the sweep in progress to end. */
  stop(): Promise<void>;
}

/**
 * Starts sweeping every `sweep_interval` (a sweep that runs long is followed at once by the
 * next, never overlapped) and the upkeep every second. Both read the board's current settings
 * each time, so a reload changes the interval and the machines from the next sweep on, and
 * a board with no configured machine ticks all the same.
 */
export function startScheduler(boardApp: BoardApp, log: Logger): Scheduler {
  const { board } = boardApp;
  let stopped = false;
  let looping = false;
  let sweepTimer: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> = Promise.resolve();

  const runSweep = (): void => {
    sweepTimer = null;
    if (stopped) return;
    // Boards with no configured machines tick all the same: each tick closes a change set
    // (history, notifications, identities and /metrics ride on it).
    looping = true;
    const started = Date.now();
    boardApp.ownership.sweepStarting();
    sweeping = board
      .sweep()
      .then(() => undefined)
      .catch((error: unknown) => {
        if (!isStoreUnavailable(error)) log.error({ err: error }, 'sweep failed');
      })
      .finally(() => {
        if (stopped) return;
        const wait = Math.max(0, boardApp.settings().sweepIntervalMs - (Date.now() - started));
        sweepTimer = setTimeout(runSweep, wait);
      });
  };

  let upkeepRunning = false;
  let beating = false;
  let pulling = false;
  /** What other boards published (also read at once when they wake this one). */
  const pull = (): void => {
    if (pulling) return;
    pulling = true;
    boardApp.coordinator
      .pull()
      .then(() => {
        // A board died since this sweep started: its machines are polled now, not after the
        // rest of the interval.
        if (sweepTimer !== null && boardApp.ownership.boardsLost()) {
          clearTimeout(sweepTimer);
          runSweep();
        }
      })
      .catch((error: unknown) => {
        if (!isStoreUnavailable(error)) log.error({ err: error }, 'reading the cluster failed');
      })
      .finally(() => {
        pulling = false;
      });
  };
  const upkeep = setInterval(() => {
    // The heartbeat in the store (GET /api/cluster), every second, whatever the upkeep and the
    // pull do: a heartbeat that waited for a slow pull made the other boards count this one
    // dead (two missed seconds are failover_after in the cluster tests) and poll its machines.
    if (!beating) {
      beating = true;
      boardApp.membership.beat().then(
        () => {
          beating = false;
          pull();
        },
        (error: unknown) => {
          beating = false;
          if (!isStoreUnavailable(error)) log.error({ err: error }, 'heartbeat failed');
        },
      );
    }
    if (upkeepRunning) return;
    upkeepRunning = true;
    board
      .upkeep()
      .catch((error: unknown) => {
        if (!isStoreUnavailable(error)) log.error({ err: error }, 'upkeep failed');
      })
      .finally(() => {
        upkeepRunning = false;
      });
  }, HEARTBEAT_MS);

  runSweep();

  return {
    wake() {
      if (!looping && !stopped) runSweep();
    },
    async stop() {
      stopped = true;
      clearInterval(upkeep);
      if (sweepTimer !== null) clearTimeout(sweepTimer);
      await sweeping;
    },
  };
}
