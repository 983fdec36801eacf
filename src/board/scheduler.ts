import type { Logger } from '../shared/logger.js';
import type { BoardApp } from './app.js';
import type { BoardSettings } from './config.js';

/** The board's timers: the sweep loop, the upkeep tick, and the identity snapshot. */
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
  const { board, identities } = boardApp;
  let stopped = false;
  let sweepTimer: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> = Promise.resolve();

  const runSweep = (): void => {
    if (stopped) return;
    const started = Date.now();
    sweeping = board
      .sweep()
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
      .then(() => identities.save(board.registry))
      .catch((error: unknown) => log.error({ err: error }, 'upkeep failed'))
      .finally(() => {
        upkeepRunning = false;
      });
  }, UPKEEP_MS);

  if (settings.machines.length > 0) runSweep();

  return {
    async stop() {
      stopped = true;
      clearInterval(upkeep);
      if (sweepTimer !== null) clearTimeout(sweepTimer);
      await sweeping;
    },
  };
}
