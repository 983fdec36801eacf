import type { Logger } from '../../shared/logger.js';
import type { Coordinator } from '../cluster/coordinator.js';
import { isStoreUnavailable } from '../domain/store-unavailable.js';
import type { History } from '../history/history.js';
import { MetricsExporter } from '../metrics/metrics-exporter.js';
import { registerStoreMetrics } from '../metrics/store-metrics.js';
import type { Notifier } from '../notify/notifier.js';
import type { OpenedStore } from '../store/open-store.js';
import type { Domain } from './build-domain.js';
import type { ClusterBasis } from './build-ownership.js';

/**
 * Subscribes what rides on each change set and on the journal, in this order: silences and
 * notifications (and the checks' changes), /metrics, the records shared with other boards, the inbox, history. Answers the exporter.
 */
export function wireObservers(
  state: OpenedStore,
  domain: Pick<
    Domain,
    'registry' | 'events' | 'silences' | 'selectorSilences' | 'inbox' | 'checks'
  >,
  notifier: Notifier,
  coordinator: Coordinator,
  cluster: Pick<ClusterBasis, 'ownership'>,
  history: History | null,
  logger: Logger,
): MetricsExporter {
  const { store, health, tables } = state;
  const { registry, events, silences, selectorSilences, inbox, checks } = domain;
  const { ownership } = cluster;
  registry.changes.subscribe((set) => {
    // Silences that ran out end first, so what fires in this very set is sent.
    silences.expire(set.at)?.catch((error: unknown) => {
      if (!isStoreUnavailable(error)) logger.error({ err: error }, 'ending a silence failed');
    });
    selectorSilences.expire(set.at)?.catch((error: unknown) => {
      if (!isStoreUnavailable(error)) logger.error({ err: error }, 'ending a silence failed');
    });
    notifier.onChangeSet(set);
  });
  // A check's changes go through the rules as they happen (a check is no machine: no change set).
  checks.subscribe(notifier.onCheckChange);
  const exporter = new MetricsExporter((metrics) =>
    registerStoreMetrics(metrics, {
      engine: store.engine,
      health,
      journalBuffered: () => tables.journalBuffered,
      historyDropped: () => history?.recorder.shedTotal ?? 0,
    }),
  );
  registry.changes.subscribe((set) => exporter.onChangeSet(set));
  registry.changes.subscribe((set) => coordinator.onChangeSet(set));
  // Acknowledgements of sessions that rang again, or that their machine no longer lists, go.
  registry.changes.subscribe((set) => inbox.onChangeSet(set));
  events.subscribe({ journalAppended: (entry) => exporter.onJournal(entry) });
  if (history !== null) {
    // Of several boards, each records the machines it owns.
    registry.changes.subscribe((set) => history.record(ownership.view(set)));
    events.subscribe({ machineRemoved: (name) => history.forgotten(name) });
  }
  return exporter;
}
