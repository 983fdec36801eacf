import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { type Clock, systemClock } from '../shared/clock.js';
import type { TrustedProxies } from '../shared/http/client-address.js';
import type { Logger } from '../shared/logger.js';
import type { Access } from './auth/access.js';
import type { Coordinator } from './cluster/coordinator.js';
import type { Membership } from './cluster/membership.js';
import type { Ownership } from './cluster/ownership.js';
import type { BoardSettings } from './config/config.js';
import type { AgentClient } from './domain/agent-client.js';
import type { AgentUpdates } from './domain/agent-updates.js';
import type { Board } from './domain/board.js';
import type { EventHub } from './domain/events.js';
import { SumsSigner } from './enroll/sums-signer.js';
import type { History } from './history/history.js';
import { openHistory } from './history/open-history.js';
import { BUILTIN_LANG_DIR } from './lang/languages.js';
import type { Notifier } from './notify/notifier.js';
import type { Silences } from './notify/silences.js';
import type { IdentityStore } from './store/identity-store.js';
import { applySettings } from './wiring/apply-settings.js';
import { buildDomain } from './wiring/build-domain.js';
import { buildOwnership } from './wiring/build-ownership.js';
import { buildPolling } from './wiring/build-polling.js';
import { closeBoard } from './wiring/close-board.js';
import { CurrentSettings } from './wiring/current-settings.js';
import { openState } from './wiring/open-state.js';
import { openHttp, registerRoutes } from './wiring/register-routes.js';
import { openReleases, startUpdateTimers } from './wiring/wire-agent-updates.js';
import { wireCheckHistory } from './wiring/wire-check-history.js';
import { wireCheckRuns } from './wiring/wire-check-runs.js';
import { joinCluster, wireCluster } from './wiring/wire-cluster.js';
import { type NotifySeams, wireNotify } from './wiring/wire-notify.js';
import { wireObservers } from './wiring/wire-observers.js';

export interface BoardAppDeps {
  settings: BoardSettings;
  logger: Logger;
  clock?: Clock;
  client?: AgentClient;
  builtinLangDir?: string;
  /** The built browser UI (Vite's output); default dist/ui beside dist/board. */
  uiDir?: string;
  /** The directory of the agent files served at /agent/ (default: the build's); `agent_files:` wins. */
  agentFiles?: string;
  /** Test seams of the notifier (waits between tries, the sending itself). */
  notify?: NotifySeams;
}

const UI_DIR = fileURLToPath(new URL('../ui/', import.meta.url));
/** The agent files (scripts/bundle-agent.mjs, scripts/build-agent-binaries.mjs) beside the board's build. */
const AGENT_FILES = fileURLToPath(new URL('../agent-file/', import.meta.url));

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
   * hold their running values (keepRestartFields). New consumers of settings add a step to
   * wiring/apply-settings.ts.
   */
  applySettings(next: BoardSettings): { added: string[]; removed: string[] };
  /** The reverse proxies the board believes; `set()` swaps the list while running. */
  trustedProxies: TrustedProxies;
  notifier: Notifier;
  /** The boards sharing this board's store (GET /api/cluster), and this one's heartbeat. */
  membership: Membership;
  /** Of several boards: who polls what (a single board owns everything). */
  ownership: Ownership;
  /** Of several boards: the records they share. */
  coordinator: Coordinator;
  silences: Silences;
  /** Updates from the board (POST /api/machines/{name}/update and /api/machines/update). */
  updates: AgentUpdates;
  /** The board's history (null: off, or its file could not be used). */
  history: History | null;
  /** People, sessions and API tokens (what the guard resolves a credential with). */
  access: Access;
  /** Closes the HTTP app, flushes the logs and the identity snapshot. */
  close(): Promise<void>;
}

/**
 * Builds a board from its settings, step by step in dependency order: the pollers, the store,
 * who owns what, the domain, history, notifications, the records shared with other boards,
 * the change-set observers, the cluster joined, then the HTTP app and its routes.
 */
export async function buildBoard(deps: BoardAppDeps): Promise<BoardApp> {
  const { settings, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const current = new CurrentSettings(settings);
  const polling = buildPolling(deps.client, settings, logger);
  const state = await openState(settings, logger, clock);
  const cluster = buildOwnership(state, current, clock);
  const agentFilesDir = deps.agentFiles ?? AGENT_FILES;
  const { files: agentFiles, releases } = await openReleases(current, agentFilesDir);
  const domain = buildDomain(state, settings, clock, polling.client, cluster, logger, {
    settings: () => current.get(),
    releases,
  });
  const { history, unavailable } = await openHistory({
    settings: settings.history,
    store: state.store,
    clock,
    logger,
    journal: domain.journal,
    health: state.health,
    shared: () => cluster.ownership.clustered(),
  });
  const { notifier, push } = await wireNotify(
    state,
    domain,
    cluster,
    current,
    clock,
    logger,
    deps.notify,
  );
  const coordinator = wireCluster(state, domain, cluster, notifier, logger);
  const exporter = wireObservers(state, domain, notifier, coordinator, cluster, history, logger);
  if (history !== null) wireCheckHistory(domain.checks, history.checks, cluster.ownership);
  const checkRuns = wireCheckRuns(domain.checks, clock, cluster.ownership);
  const stopListening = await joinCluster(state, cluster, coordinator, settings);
  const http = await openHttp(current, logger, domain, clock);
  const { membership } = cluster;
  const served = {
    domain,
    exporter,
    push,
    beats: checkRuns.push,
    notifier,
    history,
    historyUnavailable: unavailable,
    membership,
  };
  const files = {
    builtinLangDir: deps.builtinLangDir ?? BUILTIN_LANG_DIR,
    uiDir: deps.uiDir ?? UI_DIR,
    agentFiles,
    signer: new SumsSigner(state.tables.signing, () => clock.now()),
  };
  await registerRoutes(http, served, files, current, logger);
  const stopUpdates = startUpdateTimers(releases, domain.registry, domain.updates, logger);
  const stopSweeping = domain.access.sweepEvery(10 * 60_000, (error) =>
    logger.warn({ err: error }, 'dropping expired sessions and tokens failed'),
  );

  const { board } = domain;
  return {
    app: http.app,
    board,
    events: domain.events,
    identities: domain.identities,
    settings: () => current.get(),
    applySettings: (next) =>
      applySettings(
        {
          current,
          http,
          notifier,
          polling,
          board,
          labels: domain.labels,
          access: domain.access,
          checks: domain.checks,
        },
        next,
      ),
    trustedProxies: http.trustedProxies,
    notifier,
    membership,
    ownership: cluster.ownership,
    coordinator,
    silences: domain.silences,
    updates: domain.updates,
    history,
    access: domain.access,
    close: () => {
      checkRuns.stop();
      stopUpdates();
      stopSweeping();
      return closeBoard({
        http,
        stopListening,
        coordinator,
        notifier,
        history,
        domain,
        state,
        polling,
        logger,
      });
    },
  };
}
