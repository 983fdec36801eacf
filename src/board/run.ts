import { startReloadTrigger } from '../shared/config/reload-trigger.js';
import type { Logger } from '../shared/logger.js';
import { type BoardApp, buildBoard } from './app.js';
import type { BoardSettings } from './config/config.js';
import { reloadBoard } from './config/reload.js';
import { startScheduler } from './scheduler.js';

/** A board that is listening and sweeping. */
export interface RunningBoard {
  boardApp: BoardApp;
  /** The address it listens on, e.g. http://127.0.0.1:8700. */
  url: string;
  /** Stops sweeping, finishes in-flight requests, flushes the journal and state. */
  stop(): Promise<void>;
}

export interface RunOptions {
  /**
   * Reads the config file again (SIGHUP, or the file changed on disk). Absent for the embedded
   * default, which has no file: SIGHUP is then only logged (its default would end the process).
   */
  reload?: () => BoardSettings;
}

/**
 * The queue of connections the kernel has accepted for the board and the board has not yet
 * taken (the kernel caps it at net.core.somaxconn, as Go's servers ask for that maximum). With
 * Node's default of 511, machines reporting on a new connection each at 3,000/s overflowed it in
 * bursts; each dropped handshake waits for its retransmission (1 s), which made the p99.
 */
export const LISTEN_BACKLOG = 4096;

/** Builds a board, listens (logging the one listening line) and starts its timers. */
export async function runBoard(
  settings: BoardSettings,
  logger: Logger,
  options: RunOptions = {},
): Promise<RunningBoard> {
  const boardApp = await buildBoard({ settings, logger });
  const url = await boardApp.app.listen({
    host: settings.host,
    port: settings.port,
    backlog: LISTEN_BACKLOG,
    listenTextResolver: (address) => `board listening at ${address}`,
  });
  const scheduler = startScheduler(boardApp, logger);
  const load = options.reload;
  const trigger = startReloadTrigger({
    file: load === undefined ? null : settings.source,
    log: logger,
    reload: async (why) => {
      if (load === undefined) return;
      await reloadBoard(
        {
          load,
          current: boardApp.settings,
          apply: (next) => {
            const changed = boardApp.applySettings(next);
            scheduler.wake();
            return changed;
          },
          journal: boardApp.board.journal,
          log: logger,
        },
        why,
      );
    },
  });
  return {
    boardApp,
    url,
    async stop() {
      trigger.close();
      await trigger.idle();
      await scheduler.stop();
      await boardApp.close();
    },
  };
}

/** Calls `stop` once on SIGTERM or SIGINT, then exits 0 (1 if stopping failed). */
export function exitOnSignal(logger: Logger, stop: () => Promise<void>): void {
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    stop()
      .then(() => {
        logger.info('board stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
