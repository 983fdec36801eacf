import type { Clock } from '../../shared/clock.js';
import { NO_LABELS } from '../../shared/labels.js';
import type { Logger } from '../../shared/logger.js';
import { KeyProofCheck } from '../../shared/wire/key-proof.js';
import { Access } from '../auth/access.js';
import { BOARD_RUNNER, CheckBook, PUSH_RUNNER } from '../checks/check-book.js';
import type { CheckSettings } from '../checks/check-config.js';
import { CheckHanding } from '../checks/handing.js';
import { PolledHanding } from '../checks/polled-handing.js';
import type { BoardSettings } from '../config/config.js';
import { ActionQueue } from '../domain/action-queue.js';
import type { AgentClient, AgentTarget } from '../domain/agent-client.js';
import { type AgentReleases, NO_RELEASES } from '../domain/agent-self.js';
import { AgentUpdates } from '../domain/agent-updates.js';
import { Board } from '../domain/board.js';
import { EventHub } from '../domain/events.js';
import { Inbox } from '../domain/inbox.js';
import { Journal, type JournalOptions } from '../domain/journal.js';
import { BoardLabels, LabelBook } from '../domain/labels.js';
import { Registry } from '../domain/registry.js';
import { isStoreUnavailable } from '../domain/store-unavailable.js';
import { Enrollments } from '../enroll/enrollments.js';
import { SelectorSilences } from '../notify/selector-silences.js';
import { Silences } from '../notify/silences.js';
import { IdentityStore } from '../store/identity-store.js';
import type { OpenedStore } from '../store/open-store.js';
import { SilenceStore } from '../store/silence-store.js';
import { machineMemory } from '../view/machine-memory.js';
import type { ClusterBasis } from './build-ownership.js';

/** The board's model and use cases, restored from the store. */
export interface Domain {
  events: EventHub;
  registry: Registry;
  queue: ActionQueue;
  journal: Journal;
  enrollments: Enrollments;
  board: Board;
  identities: IdentityStore;
  silences: Silences;
  /** Silences naming a label selector. */
  selectorSilences: SelectorSilences;
  /** The attention inbox: every machine's sessions and their acknowledgements. */
  inbox: Inbox;
  /** Updates from the board: asked for, handed over, and what the machines then report. */
  updates: AgentUpdates;
  /** The labels the board sets on machines. */
  labels: BoardLabels;
  /** People, sessions, API tokens and the `auth:` settings. */
  access: Access;
  /** The checks' state: runners' results in, changes of state out. */
  checks: CheckBook;
  /** What each runner is handed (its checks and their version). */
  handing: CheckHanding;
  /** The board's clock (the domain's time). */
  clock: Clock;
}

/** What the domain reads as it runs: the settings in use (a reload replaces them), the files served. */
export interface DomainSources {
  settings: () => BoardSettings;
  releases: AgentReleases;
}

/** A configured machine's agent, as a relayed action reaches it; null: not configured. */
function configuredTarget(settings: BoardSettings, name: string): AgentTarget | null {
  const m = settings.machines.find((c) => c.name === name);
  return m === undefined ? null : { url: m.url, key: m.key ?? null, ca: m.ca ?? settings.ca };
}

/** Whether `runner` runs `check` now: the board, push, or a known machine its selector picks. */
function runsCheck(registry: Registry, runner: string, check: CheckSettings): boolean {
  if (runner === BOARD_RUNNER) return check.runners.board;
  if (runner === PUSH_RUNNER) return check.type === 'push';
  const m = registry.get(runner);
  return m !== undefined && check.runners.selector?.matches(m.boardLabels, m.name) === true;
}

/** Builds the domain from what the store held: machines, queue, journal, keys and silences. */
export function buildDomain(
  state: OpenedStore,
  settings: BoardSettings,
  clock: Clock,
  client: AgentClient,
  cluster: Pick<ClusterBasis, 'ownership' | 'notices'>,
  logger: Logger,
  sources: DomainSources = { settings: () => settings, releases: NO_RELEASES },
): Domain {
  const { tables, loaded } = state;
  const { ownership, notices } = cluster;
  const events = new EventHub();
  const book = new LabelBook(settings.machines, loaded.labels);
  const checks = new CheckBook({
    now: () => clock.now(),
    onError: (error) => logger.error({ err: error }, 'a check change could not be handled'),
  });
  checks.configure(settings.checks);
  const registry = new Registry(
    clock,
    events,
    settings.machines,
    settings.maxAnnounced,
    machineMemory(clock),
    {
      maxAnnouncedBytes: settings.maxAnnouncedBytes,
      boardId: settings.boardId,
      releases: sources.releases,
      boardLabels: (name) => book.of(name),
      checkResults: (name, results) => checks.take(name, results),
    },
  );
  registry.restore(loaded.identities);
  checks.setRunners((runner, check) => runsCheck(registry, runner, check));
  // Each tick: results that grew old and runners that stopped running a check stop counting.
  registry.changes.subscribe(() => checks.sweep());
  const queue = new ActionQueue(clock, tables.queue, loaded.queue);
  for (const m of registry.announced()) registry.setQueued(m.name, queue.count(m.name));
  const journal = new Journal(clock, events, tables.journal, loaded.journal, {
    boardId: settings.boardId,
    ...sharedJournal(state),
  });
  const enrollments = new Enrollments(tables.enrollments, () => clock.now(), loaded.enrollments);
  const keyProofs = new KeyProofCheck();
  const identities = new IdentityStore(tables.identities, (name) => keyProofs.lastAccepted(name));
  const onError = (error: unknown): void => {
    if (!isStoreUnavailable(error)) logger.error({ err: error }, 'board background work failed');
  };
  // What each runner is handed, from the settings in use (a reload replaces them).
  const handing = new CheckHanding(() => sources.settings().checks);
  const polledHanding = new PolledHanding({
    handing,
    labels: (name) => registry.get(name)?.boardLabels,
    target: (name) => configuredTarget(sources.settings(), name),
    client,
    timeoutMs: () => sources.settings().pollTimeoutMs,
    clock,
    failed: (name, detail) =>
      logger.warn({ machine: name, detail }, 'checks could not be handed to a polled agent'),
  });
  const board = new Board({
    enrollments,
    settings,
    clock,
    client,
    registry,
    queue,
    journal,
    keyProofs,
    persistIdentities: () => identities.save(registry),
    owns: (name) => ownership.owns(name),
    forgotten: (name, revoked) => notices.publish(name, revoked),
    handOver: (name) => updates.handOver(name),
    handChecks: (name, version) =>
      handing.answer(name, registry.get(name)?.boardLabels ?? NO_LABELS, version),
    polledChecks: (name, version) => polledHanding.polled(name, version),
    onError,
  });
  const updates = new AgentUpdates({
    clock,
    registry,
    // The board's own policy: what reports cause shares the budgets of outsiders' entries.
    notes: board.notes,
    releases: sources.releases,
    refreshReleases: async () => {
      if (await sources.releases.refresh?.()) registry.releasesChanged();
    },
    table: tables.updates,
    loaded: loaded.updates,
    client,
    configured: (name) => configuredTarget(sources.settings(), name),
    timeoutMs: () => sources.settings().pollTimeoutMs,
    intervalMs: (m) => m.intervalMs ?? sources.settings().sweepIntervalMs,
    onError,
  });
  events.subscribe({
    machineChanged: (m) => updates.observe(m),
    machineRemoved: (name) => updates.removed(name),
  });
  for (const i of loaded.identities) {
    if (i.key_proof_at !== null) keyProofs.restore(i.name, i.key_proof_at);
  }
  const silences = new Silences(
    clock,
    registry,
    journal,
    new SilenceStore(tables.silences, loaded.silences),
    (name) => ownership.owns(name),
  );
  silences.restore();
  const selectorSilences = new SelectorSilences(clock, registry, journal, tables.selectorSilences);
  selectorSilences.restore(loaded.selectorSilences);
  const inbox = new Inbox(clock, registry, journal, tables.acks, loaded.acks, (error) =>
    logger.warn({ err: error }, 'forgetting acknowledgements failed'),
  );
  const labels = new BoardLabels(book, { registry, journal, table: tables.labels });
  const access = new Access(tables.auth, clock, journal);
  access.configure(settings.auth);
  return {
    access,
    checks,
    handing,
    clock,
    labels,
    events,
    registry,
    queue,
    journal,
    enrollments,
    board,
    identities,
    silences,
    selectorSilences,
    inbox,
    updates,
  };
}

/**
 * On PostgreSQL, journal ids come from the store in blocks and the journal served is the
 * store's, however many boards are alive; this board's own while the store cannot write.
 */
function sharedJournal({ store, health }: OpenedStore): JournalOptions {
  if (store.journal.reserve === undefined) return {};
  return {
    reserve: store.journal.reserve,
    shared: async (limit, before) =>
      health.available ? store.journal.recent(limit, before) : null,
  };
}
