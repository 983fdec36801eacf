import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { type Clock, systemClock } from '../shared/clock.js';
import { TrustedProxies } from '../shared/http/client-address.js';
import { FailureLimiter } from '../shared/http/failure-limiter.js';
import { createHttpApp } from '../shared/http/http-app.js';
import type { Logger } from '../shared/logger.js';
import { setServerCertificate } from '../shared/tls/server-certificate.js';
import { VERSION } from '../shared/version.js';
import { Coordinator } from './cluster/coordinator.js';
import { Membership } from './cluster/membership.js';
import type { BoardSettings } from './config/config.js';
import { casChanged } from './config/settings-diff.js';
import { ActionQueue } from './domain/action-queue.js';
import type { AgentClient } from './domain/agent-client.js';
import { Board } from './domain/board.js';
import { EventHub } from './domain/events.js';
import { Journal } from './domain/journal.js';
import { Registry } from './domain/registry.js';
import { isStoreUnavailable } from './domain/store-unavailable.js';
import { AgentFile } from './enroll/agent-file.js';
import { enrollRoutes } from './enroll/enroll-routes.js';
import { Enroller } from './enroll/enroller.js';
import { Enrollments } from './enroll/enrollments.js';
import type { History } from './history/history.js';
import { openHistory } from './history/open-history.js';
import { actionRoutes } from './http/action-routes.js';
import { type AuthOptions, installAuth, TokenChanges } from './http/auth.js';
import { boardRoutes } from './http/board-routes.js';
import { clusterRoutes } from './http/cluster-routes.js';
import { historyRoutes } from './http/history-routes.js';
import { journalRoutes } from './http/journal-routes.js';
import { liveRoutes } from './http/live-routes.js';
import { metaRoutes } from './http/meta-routes.js';
import { metricsRoutes } from './http/metrics-routes.js';
import { notifyRoutes } from './http/notify-routes.js';
import { pushRoutes } from './http/push-routes.js';
import { installReportFastPath } from './http/report-fast-path.js';
import { silenceRoutes } from './http/silence-routes.js';
import { uiRoutes } from './http/ui-routes.js';
import { BUILTIN_LANG_DIR, Languages } from './lang/languages.js';
import { MetricsExporter } from './metrics/metrics-exporter.js';
import { registerStoreMetrics } from './metrics/store-metrics.js';
import type { NotifyEvent } from './notify/event.js';
import { Notifier, type NotifierDeps } from './notify/notifier.js';
import { WebPush } from './notify/push.js';
import { Silences } from './notify/silences.js';
import { createAgentClient } from './polling/agent-client.js';
import { SwitchableClient } from './polling/switchable-client.js';
import { pollerHeapMb, pollerThreads, ThreadedClient } from './polling/threaded-client.js';
import { IdentityStore } from './store/identity-store.js';
import { openStore } from './store/open-store.js';
import { SilenceStore } from './store/silence-store.js';
import { machineMemory } from './view/machine-memory.js';

/**
 * Of several boards, an event of the same kind for the same machine and channel claimed by
 * another board this recently is not sent again (two boards that both thought they owned it).
 */
const CLAIM_WINDOW_MS = 30_000;

/** A notification's claim: channel, kind, machine (and session, metric, path). */
function claimKey(channel: string, e: NotifyEvent): string {
  return [channel, e.event, e.machine, e.session ?? '', e.metric ?? '', e.path ?? ''].join('\n');
}

export interface BoardAppDeps {
  settings: BoardSettings;
  logger: Logger;
  clock?: Clock;
  client?: AgentClient;
  builtinLangDir?: string;
  /** The built browser UI (Vite's output); default dist/ui beside dist/board. */
  uiDir?: string;
  /** The one-file agent served at /agent/panoptes-agent.mjs (default: the build's). */
  agentFile?: string;
  /** Test seams of the notifier (waits between tries, the sending itself). */
  notify?: Pick<NotifierDeps, 'backoffMs' | 'send'>;
}

const UI_DIR = fileURLToPath(new URL('../ui/', import.meta.url));
/** The one-file agent, bundled by scripts/bundle-agent.mjs beside the board's build. */
const AGENT_FILE = fileURLToPath(new URL('../agent-file/panoptes-agent.mjs', import.meta.url));

/** A board, built and not listening: its HTTP app, its domain, and how to close both. */
export interface BoardApp {
  app: FastifyInstance;
  board: Board;
  events: EventHub;
  identities: IdentityStore;
  /** The settings in use (replaced by applySettings). */
  settings(): BoardSettings;
  /**
   * Switches the running board to reloaded settings, one small step per consumer of them, with
   * no request, queued action or live client dropped. Fields that need a restart must already
   * hold their running values (keepRestartFields). New consumers of settings add a step here.
   */
  applySettings(next: BoardSettings): { added: string[]; removed: string[] };
  /** The reverse proxies the board believes; `set()` swaps the list while running. */
  trustedProxies: TrustedProxies;
  notifier: Notifier;
  /** The boards sharing this board's store (GET /api/cluster), and this one's heartbeat. */
  membership: Membership;
  /** Of several boards: who polls what, and the records they share. */
  coordinator: Coordinator;
  silences: Silences;
  /** The board's history (null: off, or its file could not be used). */
  history: History | null;
  /** Closes the HTTP app, flushes the logs and the identity snapshot. */
  close(): Promise<void>;
}

/** Builds a board from its settings: stores opened, state restored, routes registered. */
export async function buildBoard(deps: BoardAppDeps): Promise<BoardApp> {
  const { settings, logger } = deps;
  const clock = deps.clock ?? systemClock;
  // Polls run in poller threads (see pollerThreads); relays on this one.
  // The poller's heap ceiling the running client was started with (see pollerHeapMb).
  let pollerHeap = 0;
  const newClient = (s: BoardSettings): AgentClient => {
    const options = { connectTimeoutMs: Math.min(s.pollTimeoutMs, 10_000) };
    pollerHeap = pollerHeapMb(s.machines.length);
    return new ThreadedClient(
      { client: options, heapMb: pollerHeap },
      createAgentClient(options),
      (error) => logger.error({ err: error }, 'poller failed'),
      pollerThreads(),
      // Nothing configured to poll: no poller thread until there is (announced machines only).
      s.machines.length === 0,
    );
  };
  const client = new SwitchableClient(deps.client ?? newClient(settings));
  // Everything durable goes through the store: one engine, its health, the tables the domain uses.
  const opened = await openStore(settings.store, settings.dataDir, logger, () => clock.now());
  const { store, health, tables, loaded } = opened;
  const events = new EventHub();
  const registry = new Registry(
    clock,
    events,
    settings.machines,
    settings.maxAnnounced,
    machineMemory(clock),
    settings.maxAnnouncedBytes,
  );
  registry.boardId = settings.boardId;
  registry.restore(loaded.identities);
  const queue = new ActionQueue(clock, tables.queue, loaded.queue);
  for (const m of registry.announced()) registry.setQueued(m.name, queue.count(m.name));
  const journal = new Journal(clock, events, tables.journal, loaded.journal);
  journal.boardId = settings.boardId;
  // On PostgreSQL, journal ids come from the store in blocks and the journal served is the
  // store's, however many boards are alive; this board's own while the store cannot write.
  if (store.journal.reserve !== undefined) {
    journal.reserve = store.journal.reserve;
    journal.shared = async (limit) => (health.available ? store.journal.recent(limit) : null);
  }
  let current = settings;
  const membership = new Membership(
    tables.boards,
    () => ({
      id: current.boardId,
      machines: current.machines.length,
      failoverAfterMs: current.failoverAfterMs,
    }),
    () => clock.now(),
  );
  const coordinator = new Coordinator({
    self: () => current.boardId,
    membership,
    registry,
    records: store.records,
    syncShared: async () => {
      board.keyGiven(enrollments.sync(await store.enrollments.load()));
      for (const name of await queue.sync(() => tables.queue.load())) {
        registry.setQueued(name, queue.count(name));
      }
      const seen = silences.version;
      silences.sync(await store.silences.load(), seen);
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
  const enrollments = new Enrollments(tables.enrollments, () => clock.now(), loaded.enrollments);
  const board = new Board({
    enrollments,
    settings,
    clock,
    client,
    registry,
    queue,
    journal,
    persistIdentities: () => identities.save(registry),
    owns: (name) => coordinator.owns(name),
    forgotten: (name, revoked) => coordinator.forgotten(name, revoked),
    onError: (error) => {
      if (!isStoreUnavailable(error)) logger.error({ err: error }, 'board background work failed');
    },
  });
  const identities = new IdentityStore(tables.identities, (name) =>
    board.keyProofs.lastAccepted(name),
  );
  for (const i of loaded.identities) {
    if (i.key_proof_at !== null) board.keyProofs.restore(i.name, i.key_proof_at);
  }
  const silences = new Silences(
    clock,
    registry,
    journal,
    new SilenceStore(tables.silences, loaded.silences),
  );
  silences.restore();
  silences.owns = (name) => coordinator.owns(name);
  const notifier = new Notifier(
    {
      clock,
      journal,
      logger,
      deliveries: store.deliveries,
      publicUrl: settings.publicUrl,
      silenced: (name, now) => silences.silenced(name, now),
      ...deps.notify,
    },
    settings.notify,
  );
  // Of several boards, each sends for the machines it owns (every event once).
  notifier.mayNotify = (name) => coordinator.notifies(name);
  notifier.claim = (channel, events) => {
    if (!coordinator.clustered()) return null;
    const items = events.map((e) => ({ key: claimKey(channel, e), event: JSON.stringify(e) }));
    return store.claims
      .claim(current.boardId, items, clock.now(), CLAIM_WINDOW_MS)
      .then((claimed) => {
        const got = new Set(claimed);
        return events.filter((e) => got.has(claimKey(channel, e)));
      });
  };
  // A board that dies with messages unsent: another takes its claims (Coordinator.pull).
  notifier.settled = (channel, events) => {
    store.claims.settle(events.map((e) => claimKey(channel, e))).catch(() => undefined);
  };
  await notifier.restorePending();
  registry.changes.subscribe((set) => {
    // Silences that ran out end first, so what fires in this very set is sent.
    silences.expire(set.at)?.catch((error: unknown) => {
      if (!isStoreUnavailable(error)) logger.error({ err: error }, 'ending a silence failed');
    });
    notifier.onChangeSet(set);
  });
  // /metrics rides on the per-sweep change set and on the journal.
  const exporter = new MetricsExporter((registry) =>
    registerStoreMetrics(registry, {
      engine: store.engine,
      health,
      journalBuffered: () => tables.journalBuffered,
      historyDropped: () => history?.recorder.shedTotal ?? 0,
    }),
  );
  registry.changes.subscribe((set) => exporter.onChangeSet(set));
  registry.changes.subscribe((set) => coordinator.onChangeSet(set));
  events.subscribe({ journalAppended: (entry) => exporter.onJournal(entry) });
  const { history, unavailable } = await openHistory({
    settings: settings.history,
    store,
    clock,
    logger,
    registry,
    events,
    journal,
    health,
    view: (set) => coordinator.view(set),
  });
  if (history !== null) history.shared = () => coordinator.clustered();
  // Before the first sweep: which boards are alive (so this one polls only its share) and what
  // they published (so its first polls are no first sightings). A store away: later.
  await membership
    .beat()
    .then(() => coordinator.awaitPeers(settings.sweepIntervalMs + 2000))
    .catch(() => undefined);
  // Woken when another board publishes or queues (LISTEN); the scheduler also reads every second.
  const stopListening = await store.records.listen(() => {
    coordinator.pull().catch(() => undefined);
  });

  const trustedProxies = new TrustedProxies(settings.trustedProxies ?? []);
  const app = await createHttpApp({
    logger,
    tls: settings.tls,
    keepAliveTimeoutMs: settings.keepAliveMs,
    trustedProxies,
    openapi: {
      title: 'Panoptes',
      version: VERSION,
      description:
        'The board: every machine as of the last sweep, actions relayed or queued, the journal and the language catalogues. ' +
        'Live updates: GET /api/live is a WebSocket (token in the Authorization header or ?token=), not an HTTP operation: ' +
        'it sends {"type":"board","board":…} once, then {"type":"machine","machine":…}, {"type":"removed","name":…} and {"type":"journal","entry":…}.',
      bearerDescription:
        'Authorization: Bearer <board token> (or the registration token, for POST /api/report only)',
      queryDescription:
        '?token=<board token> (or the registration token, for POST /api/report only)',
    },
  });
  // Read by the token rule at each request: a reload replaces the two tokens in place.
  const auth: AuthOptions = {
    boardToken: settings.boardToken,
    registrationToken: settings.registrationToken,
    board,
    limiter: new FailureLimiter(() => clock.now()),
  };
  const tokens = installAuth(app, auth);
  const tokenChanges = new TokenChanges();
  const languages = new Languages(
    deps.builtinLangDir ?? BUILTIN_LANG_DIR,
    settings.configDir,
    logger,
  );
  await app.register(metaRoutes, { languages });
  await app.register(boardRoutes, { board });
  await app.register(actionRoutes, { board });
  await app.register(journalRoutes, { board });
  await app.register(liveRoutes, { registry, events, tokens, tokenChanges });
  await app.register(metricsRoutes, { exporter });
  await app.register(notifyRoutes, { notifier });
  await app.register(silenceRoutes, { silences });
  await app.register(historyRoutes, { registry, history, unavailable });
  await app.register(clusterRoutes, { membership });
  const agentFile = new AgentFile(deps.agentFile ?? AGENT_FILE);
  await app.register(enrollRoutes, {
    enroller: new Enroller({ board, enrollments, agentFile, settings: () => current }),
    enrollments,
    agentFile,
    address: () => ({ publicUrl: current.publicUrl, tls: current.tls !== null }),
  });
  // --- Web Push: the VAPID key pair and the browsers' subscriptions, kept in the store (every
  // board of it signs with the same key and reaches the same browsers); webpush channels send
  // through it (their deliveries wait until usePush), and the /api/push routes.
  const webPush = new WebPush({
    table: tables.push,
    settings: () => current.push,
    clock,
    journal,
  });
  notifier.usePush(webPush);
  await app.register(pushRoutes, { push: webPush });
  // --- end of Web Push.
  await app.register(uiRoutes, { dir: deps.uiDir ?? UI_DIR });
  installReportFastPath(app, { board, tokens, trustedProxies, logger });

  return {
    app,
    board,
    events,
    identities,
    settings: () => current,
    applySettings(next) {
      const previous = current;
      current = next;
      auth.boardToken = next.boardToken;
      auth.registrationToken = next.registrationToken;
      if (next.boardToken !== previous.boardToken) tokenChanges.changed();
      trustedProxies.set(next.trustedProxies ?? []);
      notifier.configure(next.notify);
      // New CAs need new connection pools; a fleet grown past the pollers' heap, pollers with
      // more room (the running ones finish their polls in flight, then close).
      const outgrown = pollerHeapMb(next.machines.length) > pollerHeap;
      if (deps.client === undefined && (casChanged(previous, next) || outgrown)) {
        const was = pollerHeap;
        client.switchTo(newClient(next));
        if (outgrown)
          logger.info(
            { machines: next.machines.length, heapMb: pollerHeap, wasMb: was },
            'new pollers with room for the grown fleet (its kept connections are made again)',
          );
      }
      if (next.tls !== null && next.tls !== previous.tls)
        setServerCertificate(app.server, next.tls);
      return board.reconfigure(next);
    },
    trustedProxies,
    membership,
    coordinator,
    notifier,
    silences,
    history,
    async close() {
      await app.close();
      await stopListening();
      await coordinator.settled();
      await notifier.close();
      await history?.close();
      // Identities with their last key proofs, and what waits for the store, if it can take it.
      await identities.save(registry, true).catch(() => undefined);
      if (!(await tables.flush())) {
        logger.warn(
          { journal: tables.journalBuffered },
          'the store is away: journal entries waiting for it are lost at this stop',
        );
      }
      health.close();
      await store.close();
      await client.close();
    },
  };
}
