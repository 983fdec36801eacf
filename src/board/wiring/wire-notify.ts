import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import { NotifyClaims } from '../cluster/notify-claims.js';
import type { BoardSettings } from '../config/config.js';
import { Notifier, type NotifierDeps } from '../notify/notifier.js';
import type { OpenedStore } from '../store/open-store.js';
import type { Domain } from './build-domain.js';
import type { ClusterBasis } from './build-ownership.js';

/** Test seams of the notifier (waits between tries, the sending itself). */
export type NotifySeams = Pick<NotifierDeps, 'backoffMs' | 'send'>;

/**
 * Builds the notifier and hands it the deliveries kept at the last stop. Of several boards,
 * each sends for the machines it owns, claiming each event in the store first (every event once).
 */
export async function wireNotify(
  state: OpenedStore,
  domain: Pick<Domain, 'journal' | 'silences'>,
  cluster: Pick<ClusterBasis, 'self' | 'ownership'>,
  settings: BoardSettings,
  clock: Clock,
  logger: Logger,
  seams: NotifySeams | undefined,
): Promise<Notifier> {
  const { store } = state;
  const { journal, silences } = domain;
  const { ownership } = cluster;
  const claims = new NotifyClaims({
    self: cluster.self,
    table: store.claims,
    ownership,
    now: () => clock.now(),
  });
  const notifier = new Notifier(
    {
      clock,
      journal,
      logger,
      deliveries: store.deliveries,
      publicUrl: settings.publicUrl,
      silenced: (name, now) => silences.silenced(name, now),
      mayNotify: (name) => ownership.notifies(name),
      claims,
      ...seams,
    },
    settings.notify,
  );
  await notifier.restorePending();
  return notifier;
}
