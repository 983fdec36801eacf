import type { Clock } from '../../shared/clock.js';
import { NO_LABELS } from '../../shared/labels.js';
import type { Logger } from '../../shared/logger.js';
import { NotifyClaims } from '../cluster/notify-claims.js';
import type { BoardSettings } from '../config/config.js';
import { Notifier, type NotifierDeps } from '../notify/notifier.js';
import { WebPush } from '../notify/push.js';
import { SentAlerts } from '../notify/sent-alerts.js';
import type { OpenedStore } from '../store/open-store.js';
import type { Domain } from './build-domain.js';
import type { ClusterBasis } from './build-ownership.js';
import type { CurrentSettings } from './current-settings.js';

/** Test seams of the notifier (waits between tries, the sending itself). */
export type NotifySeams = Pick<NotifierDeps, 'backoffMs' | 'send'>;

/**
 * Builds Web Push (the VAPID key and the subscriptions in the store) and the notifier, and hands
 * it the deliveries kept at the last stop. Of several boards, each sends for the machines it
 * owns, claiming each event in the store first (every event once).
 */
export async function wireNotify(
  state: OpenedStore,
  domain: Pick<Domain, 'journal' | 'silences' | 'selectorSilences' | 'registry'>,
  cluster: Pick<ClusterBasis, 'self' | 'ownership'>,
  current: CurrentSettings,
  clock: Clock,
  logger: Logger,
  seams: NotifySeams | undefined,
): Promise<{ notifier: Notifier; push: WebPush }> {
  const { store, tables } = state;
  const settings: BoardSettings = current.get();
  const { journal, silences, selectorSilences, registry } = domain;
  const { ownership } = cluster;
  const claims = new NotifyClaims({
    self: cluster.self,
    table: store.claims,
    ownership,
    now: () => clock.now(),
  });
  const push = new WebPush({
    table: tables.push,
    settings: () => current.get().push,
    clock,
    journal,
  });
  const alerts = new SentAlerts(store.alerts, await store.alerts.load(), (error) => {
    logger.error({ err: error }, 'a sent disk alert could not be kept in the store');
  });
  const notifier = new Notifier(
    {
      clock,
      journal,
      logger,
      deliveries: store.deliveries,
      publicUrl: settings.publicUrl,
      silenced: (name, now) => silences.silenced(name, now) || selectorSilences.covers(name, now),
      mayNotify: (name) => ownership.notifies(name),
      labels: (name) => registry.get(name)?.labels ?? NO_LABELS,
      claims,
      push,
      alerts,
      ...seams,
    },
    settings.notify,
  );
  await notifier.restorePending();
  return { notifier, push };
}
