import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../shared/logger.js';
import type { StoreSettings } from '../config/config.js';
import type { QueuedAction } from '../domain/action-queue.js';
import type { AckRecord } from '../domain/inbox.js';
import type { SelectorSilenceRecord } from '../notify/selector-silence-table.js';
import type { JournalEntry } from '../schemas.js';
import { GuardedTables } from './guarded-tables.js';
import { type ImportReport, importLegacy } from './legacy/import-legacy.js';
import { describePostgres, postgresFailure } from './postgres/failure.js';
import { SqliteStore } from './sqlite/state-store.js';
import type {
  BoardLabelRecord,
  BoardStore,
  EnrollmentRecord,
  PendingUpdateRecord,
  SilenceRecord,
  StoredIdentity,
} from './state.js';
import { StoreHealth } from './store-health.js';

/** How long a board waits at start for a PostgreSQL that does not answer. */
const CONNECT_FOR_MS = 30_000;

/** The store, opened and read: what the board's domain is built from. */
export interface OpenedStore {
  store: BoardStore;
  health: StoreHealth;
  tables: GuardedTables;
  loaded: {
    journal: JournalEntry[];
    queue: QueuedAction[];
    identities: StoredIdentity[];
    silences: SilenceRecord[];
    enrollments: EnrollmentRecord[];
    acks: AckRecord[];
    updates: PendingUpdateRecord[];
    labels: BoardLabelRecord[];
    selectorSilences: SelectorSilenceRecord[];
  };
  imported: ImportReport | null;
}

/**
 * Opens the configured engine (embedded SQLite in `dataDir`, or PostgreSQL), imports a data
 * directory of an earlier version once, and reads back what the domain starts from. A
 * PostgreSQL that does not answer is tried again for 30 s (a board and its database started
 * together); past that the board does not start, and says why without the URL.
 */
export async function openStore(
  settings: StoreSettings,
  dataDir: string,
  logger: Logger,
  now: () => number,
): Promise<OpenedStore> {
  const health = new StoreHealth(logger, now);
  const store = await openEngine(settings, dataDir, logger, health);
  const imported = await importLegacy(dataDir, store, logger);
  const tables = new GuardedTables(store, health);
  const loaded = {
    journal: await store.journal.load(),
    queue: await store.queue.load(),
    identities: await store.identities.load(),
    silences: await store.silences.load(),
    enrollments: await store.enrollments.load(),
    acks: await store.acks.load(),
    updates: await store.updates.load(),
    labels: await store.labels.load(),
    selectorSilences: await store.selectorSilences.load(),
  };
  logger.info(
    { store: store.where, engine: store.engine },
    `store: ${store.engine} (${store.where})`,
  );
  return { store, health, tables, loaded, imported };
}

async function openEngine(
  settings: StoreSettings,
  dataDir: string,
  logger: Logger,
  health: StoreHealth,
): Promise<BoardStore> {
  if (settings.engine === 'sqlite')
    return SqliteStore.open(dataDir, (error) => health.failed('sqlite', error));
  // node-postgres is loaded only for a PostgreSQL store; missing, the board does not start.
  const { PostgresStore } = await import('./postgres/state-store.js').catch((error: unknown) => {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot open the store at ${describePostgres(settings.url)}: ${why}`);
  });
  const started = Date.now();
  let logged = false;
  for (;;) {
    try {
      return await PostgresStore.open(settings, (error) => health.failed('postgres', error));
    } catch (error) {
      const why = postgresFailure(error);
      const transient =
        why === 'connection refused' ||
        why === 'timed out' ||
        why === 'connection lost' ||
        why === 'server shutting down';
      if (!transient || Date.now() - started > CONNECT_FOR_MS) {
        throw new Error(`cannot open the store at ${describePostgres(settings.url)}: ${why}`);
      }
      if (!logged) {
        logger.warn(
          { store: describePostgres(settings.url), why },
          'store not reachable yet; trying again for 30 s',
        );
        logged = true;
      }
      await sleep(1000);
    }
  }
}
