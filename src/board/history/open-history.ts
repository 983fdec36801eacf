import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { Journal } from '../domain/journal.js';
import { BOARD_WHO } from '../domain/who.js';
import { History } from './history.js';
import type { HistoryStore } from './history-store.js';
import { HISTORY_DEFAULTS, type HistorySettings } from './settings.js';

/** What history needs of the board's store: where it is (for logs), and its history engine. */
export interface HistorySource {
  readonly where: string;
  openHistory(now: () => number): Promise<HistoryStore>;
}

/** Where history's writes are counted: the store's health, which logs an outage once. */
export interface WriteHealth {
  /** Notes a failed write. */
  failed(what: string, error: unknown): void;
  /** Notes a write that worked. */
  succeeded(): void;
  /** Resolves once the store has been proved again. */
  whenBack(): Promise<void>;
}

/** The board's history, or why it has none. */
export interface OpenedHistory {
  history: History | null;
  /** Why history is unavailable (answered as 503 by the history routes), or null. */
  unavailable: string | null;
}

/**
 * Opens the history on the board's store (`history: false`: none); the board then hands it the
 * change sets it records and the machines forgotten. A history that cannot be opened (a file
 * corrupt or locked, a schema from a newer version) is logged once, clearly, and the board goes
 * on without history. A sweep that cannot be written waits (bounded, oldest dropped first) until
 * the store is back; how much was dropped is said in one journal entry once it is.
 */
export async function openHistory(deps: {
  settings: HistorySettings | null | undefined;
  store: HistorySource;
  clock: Clock;
  logger: Logger;
  journal: Journal;
  /** Where a failed write is counted (an outage is logged once, not each sweep). */
  health: WriteHealth;
  /** Whether other boards write this store too. Absent: none do. */
  shared?: () => boolean;
}): Promise<OpenedHistory> {
  const { settings, store, clock, logger, health, journal } = deps;
  if (settings === null) return { history: null, unavailable: null };
  let history: History;
  try {
    const engine = await store.openHistory(() => clock.now());
    history = new History(engine, settings ?? HISTORY_DEFAULTS, clock, {
      onError: (error) => health.failed('history', error),
      onWritten: () => {
        health.succeeded();
        const dropped = history.recorder.shed;
        if (dropped === 0) return;
        history.recorder.shed = 0;
        journal
          .record({
            who: BOARD_WHO,
            op: 'history',
            target: 'store',
            outcome: 'failed',
            status: null,
            detail: `${dropped} sample(s) of history were dropped while the store was behind or away (the buffer holds 100,000)`,
          })
          .catch(() => undefined);
      },
      whenBack: () => health.whenBack(),
      ...(deps.shared === undefined ? {} : { shared: deps.shared }),
    });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    logger.error(
      { store: store.where },
      `history unavailable, the live view goes on without it: ${why}`,
    );
    return { history: null, unavailable: `History is unavailable: ${why}` };
  }
  return { history, unavailable: null };
}
