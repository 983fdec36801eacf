import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { EventHub } from '../domain/events.js';
import type { Registry } from '../domain/registry.js';
import { openLibsqlHistory } from '../store/sqlite/history-store.js';
import type { StoreHealth } from '../store/store-health.js';
import { History } from './history.js';
import { HISTORY_DEFAULTS, type HistorySettings } from './settings.js';

/** The board's history, or why there is none (history: false, or the file cannot be used). */
export interface OpenedHistory {
  history: History | null;
  /** Why the history API answers 503 (null: it does not, or history is off by choice). */
  unavailable: string | null;
}

/**
 * Opens DIR/data/history.db and subscribes it to the board's change sets. A file that is
 * corrupt or locked is logged once, clearly, and the board goes on without history.
 */
export function openHistory(deps: {
  settings: HistorySettings | null | undefined;
  dataDir: string;
  clock: Clock;
  logger: Logger;
  registry: Registry;
  events: EventHub;
  /** Where a failed write is counted (a full disk is logged once, not each sweep). */
  health: StoreHealth;
}): OpenedHistory {
  const { settings, dataDir, clock, logger, registry, events, health } = deps;
  if (settings === null) return { history: null, unavailable: null };
  const path = join(dataDir, 'history.db');
  let history: History;
  try {
    const store = openLibsqlHistory(path, () => clock.now());
    // A failed write loses that sweep's samples (they are not held back); the next one retries.
    history = new History(
      store,
      settings ?? HISTORY_DEFAULTS,
      clock,
      (error) => health.failed('history.db', error),
      () => health.succeeded(),
    );
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    logger.error({ file: path }, `history unavailable, the live view goes on without it: ${why}`);
    return { history: null, unavailable: `History is unavailable: ${why}` };
  }
  registry.changes.subscribe(history.record);
  events.subscribe({ machineRemoved: (name) => history.forgotten(name) });
  return { history, unavailable: null };
}
