import type { Logger } from '../shared/logger.js';
import type { BoardApp } from './app.js';
import type { BoardSettings } from './config.js';

/** The board's timers: the sweep loop (each sweep closes a change set) and the upkeep tick. */
export interface Scheduler {
  /** Stops starting new work and waits for the sweep in progress to end. */
  stop(): Promise<void>;
}

const UPKEEP_MS = 1000;

/**
 * Starts sweeping every `sweep_interval` (a sweep that runs long is followed at once by the
 * next, never overlapped) and the upkeep every second.
 */
export function startScheduler(
  boardApp: BoardApp,
  settings: BoardSettings,
  log: Logger,
): Scheduler {
  const { board } = boardApp;
  let stopped = false;
  let sweepTimer: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> = Promise.resolve();

  const runSweep = (): void => {
    if (stopped) return;
    const started = Date.now();
    sweeping = board
      .sweep()
      .then(() => undefined)
      .catch((error: unknown) => log.error({ err: error }, 'sweep failed'))
      .finally(() => {
        if (stopped) return;
        const wait = Math.max(0, settings.sweepIntervalMs - (Date.now() - started));
        sweepTimer = setTimeout(runSweep, wait);
      });
  };

  let upkeepRunning = false;
  const upkeep = setInterval(() => {
    if (upkeepRunning) return;
    upkeepRunning = true;
    board
      .upkeep()
      .catch((error: unknown) => log.error({ err: error }, 'upkeep failed'))
      .finally(() => {
        upkeepRunning = false;
      });
  }, UPKEEP_MS);

  // Boards with no configured machines tick all the same: each tick closes a change set.
  runSweep();

  return {
    async stop() {
      stopped = true;
      clearInterval(upkeep);
      if (sweepTimer !== null) clearTimeout(sweepTimer);
      await sweeping;
    },
  };
}
