import type { Logger } from '../../shared/logger.js';
import type { Coordinator } from '../cluster/coordinator.js';
import type { History } from '../history/history.js';
import type { Notifier } from '../notify/notifier.js';
import type { OpenedStore } from '../store/open-store.js';
import type { Domain } from './build-domain.js';
import type { Polling } from './build-polling.js';
import type { Http } from './register-routes.js';

/** What a board closes, in the order it closes them. */
export interface Closable {
  http: Http;
  stopListening: () => Promise<void>;
  coordinator: Coordinator;
  notifier: Notifier;
  history: History | null;
  domain: Pick<Domain, 'identities' | 'registry'>;
  state: OpenedStore;
  polling: Polling;
  logger: Logger;
}

/** Closes the HTTP app, flushes the logs and the identity snapshot, then the store and pollers. */
export async function closeBoard(parts: Closable): Promise<void> {
  const { http, coordinator, notifier, history, domain, state, polling, logger } = parts;
  const { tables, health, store } = state;
  await http.app.close();
  await parts.stopListening();
  await coordinator.settled();
  await notifier.close();
  await history?.close();
  // Identities with their last key proofs, and what waits for the store, if it can take it.
  await domain.identities.save(domain.registry, true).catch(() => undefined);
  if (!(await tables.flush())) {
    logger.warn(
      { journal: tables.journalBuffered },
      'the store is away: journal entries waiting for it are lost at this stop',
    );
  }
  health.close();
  await store.close();
  await polling.client.close();
}
