import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { type Clock, systemClock } from '../shared/clock.js';
import { FailureLimiter } from '../shared/http/failure-limiter.js';
import { createHttpApp } from '../shared/http/http-app.js';
import type { Logger } from '../shared/logger.js';
import { VERSION } from '../shared/version.js';
import { type AgentClient, createAgentClient } from './agent-client.js';
import type { BoardSettings } from './config.js';
import { ActionQueue } from './domain/action-queue.js';
import { Board } from './domain/board.js';
import { EventHub } from './domain/events.js';
import { Journal } from './domain/journal.js';
import { Registry } from './domain/registry.js';
import type { History } from './history/history.js';
import { openHistory } from './history/open-history.js';
import { actionRoutes } from './http/action-routes.js';
import { installAuth } from './http/auth.js';
import { boardRoutes } from './http/board-routes.js';
import { historyRoutes } from './http/history-routes.js';
import { journalRoutes } from './http/journal-routes.js';
import { liveRoutes } from './http/live-routes.js';
import { metaRoutes } from './http/meta-routes.js';
import { uiRoutes } from './http/ui-routes.js';
import { BUILTIN_LANG_DIR, Languages } from './languages.js';
import { IdentityStore } from './store/identity-store.js';
import { openLogs } from './store/logs.js';

export interface BoardAppDeps {
  settings: BoardSettings;
  logger: Logger;
  clock?: Clock;
  client?: AgentClient;
  builtinLangDir?: string;
  /** The built browser UI (Vite's output); default dist/ui beside dist/board. */
  uiDir?: string;
}

const UI_DIR = fileURLToPath(new URL('../ui/', import.meta.url));

/** A board, built and not listening: its HTTP app, its domain, and how to close both. */
export interface BoardApp {
  app: FastifyInstance;
  board: Board;
  events: EventHub;
  identities: IdentityStore;
  /** The board's history (null: off, or its file could not be used). */
  history: History | null;
  /** Closes the HTTP app, flushes the logs and the identity snapshot. */
  close(): Promise<void>;
}

/** Builds a board from its settings: stores opened, state restored, routes registered. */
export async function buildBoard(deps: BoardAppDeps): Promise<BoardApp> {
  const { settings, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const client =
    deps.client ??
    createAgentClient({ connectTimeoutMs: Math.min(settings.pollTimeoutMs, 10_000) });
  const logs = await openLogs(settings.dataDir);
  for (const [name, opened] of Object.entries(logs)) {
    if (opened.contents.skipped > 0) {
      logger.warn(
        { file: name, skipped: opened.contents.skipped },
        'unreadable lines skipped (a torn write after a crash?)',
      );
    }
  }
  const events = new EventHub();
  const registry = new Registry(
    clock,
    events,
    settings.machines,
    settings.maxAnnounced,
    settings.maxAnnouncedBytes,
  );
  const identities = new IdentityStore(settings.dataDir);
  registry.restore(identities.load());
  const queue = new ActionQueue(clock, logs.queue.log, logs.queue.contents.records);
  for (const m of registry.announced()) registry.setQueued(m.name, queue.count(m.name));
  const journal = new Journal(clock, events, logs.journal.log, logs.journal.contents.records);
  const board = new Board({
    settings,
    clock,
    client,
    registry,
    queue,
    journal,
    persistIdentities: () => identities.save(registry),
  });
  const { history, unavailable } = openHistory({
    settings: settings.history,
    dataDir: settings.dataDir,
    clock,
    logger,
    registry,
    events,
  });

  const app = await createHttpApp({
    logger,
    openapi: {
      title: 'Panoptes',
      version: VERSION,
      description:
        'The board: every machine as of the last sweep, actions relayed or queued, the journal and the language catalogues.',
      bearerDescription:
        'Authorization: Bearer <board token> (or the registration token, for POST /api/report only)',
      queryDescription:
        '?token=<board token> (or the registration token, for POST /api/report only)',
    },
  });
  installAuth(app, {
    boardToken: settings.boardToken,
    registrationToken: settings.registrationToken,
    board,
    limiter: new FailureLimiter(() => clock.now()),
  });
  const languages = new Languages(
    deps.builtinLangDir ?? BUILTIN_LANG_DIR,
    settings.configDir,
    logger,
  );
  await app.register(metaRoutes, { languages });
  await app.register(boardRoutes, { board });
  await app.register(actionRoutes, { board });
  await app.register(journalRoutes, { board });
  await app.register(liveRoutes, { registry, events });
  await app.register(historyRoutes, { registry, history, unavailable });
  await app.register(uiRoutes, { dir: deps.uiDir ?? UI_DIR });

  return {
    app,
    board,
    events,
    identities,
    history,
    async close() {
      await app.close();
      await history?.close();
      await identities.save(registry);
      await logs.journal.log.close();
      await logs.queue.log.close();
      await client.close();
    },
  };
}
