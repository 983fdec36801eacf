import type { Logger } from '../../shared/logger.js';
import { Coordinator } from '../cluster/coordinator.js';
import type { BoardSettings } from '../config/config.js';
import { isStoreUnavailable } from '../domain/store-unavailable.js';
import type { Notifier } from '../notify/notifier.js';
import type { OpenedStore } from '../store/open-store.js';
import type { Domain } from './build-domain.js';
import type { ClusterBasis } from './build-ownership.js';

/** Builds the coordinator: the records this board shares with the others, and what it reads of theirs. */
export function wireCluster(
  state: OpenedStore,
  domain: Domain,
  cluster: ClusterBasis,
  notifier: Notifier,
  logger: Logger,
): Coordinator {
  const { store, tables } = state;
  const { board, enrollments, queue, registry, silences, inbox, updates, labels } = domain;
  const { selectorSilences } = domain;
  return new Coordinator({
    self: cluster.self,
    membership: cluster.membership,
    ownership: cluster.ownership,
    registry,
    records: store.records,
    syncShared: async () => {
      board.keyGiven(enrollments.sync(await store.enrollments.load()));
      for (const name of await queue.sync(() => tables.queue.load())) {
        registry.setQueued(name, queue.count(name));
      }
      const seen = silences.version;
      silences.sync(await store.silences.load(), seen);
      const selectorSeen = selectorSilences.version;
      selectorSilences.sync(await store.selectorSilences.load(), selectorSeen);
      const labeled = labels.version;
      labels.sync(await store.labels.load(), labeled);
      // Updates asked for, handed over or seen to finish on the other boards.
      updates.sync(await store.updates.load());
      // Acknowledgements given through the other boards.
      await inbox.syncFrom(() => store.acks.load());
    },
    keyProofAt: (name) => board.keyProofs.lastAccepted(name),
    claims: store.claims,
    resend: (channel, events) => notifier.resend(channel, events),
    forget: (name, revoked) => {
      // The revocation is in the store before the record that tells of it: held here at once,
      // until the next read of the shared enrollments brings it.
      if (revoked) enrollments.revokedElsewhere(name);
      if (registry.get(name)?.origin === 'announced') registry.forget(name);
    },
    revoked: (name) => enrollments.revoked(name),
    keyProofSeen: (name, at) => board.keyProofs.restore(name, at),
    onError: (error) => {
      if (!isStoreUnavailable(error))
        logger.warn({ err: error }, 'sharing records with the other boards failed');
    },
  });
}

/**
 * Before the first sweep: which boards are alive (so this one polls only its share) and what
 * they published (so its first polls are no first sightings); a store away: later. Then woken
 * when another board publishes or queues (LISTEN); the scheduler also reads every second.
 * Answers how to stop listening.
 */
export async function joinCluster(
  state: OpenedStore,
  cluster: Pick<ClusterBasis, 'membership'>,
  coordinator: Coordinator,
  settings: BoardSettings,
): Promise<() => Promise<void>> {
  await cluster.membership
    .beat()
    .then(() => coordinator.awaitPeers(settings.sweepIntervalMs + 2000))
    .catch(() => undefined);
  return state.store.records.listen(() => {
    coordinator.pull().catch(() => undefined);
  });
}
