import type { FastifyInstance } from 'fastify';
import { FailureLimiter } from '../shared/http/failure-limiter.js';
import { createHttpApp } from '../shared/http/http-app.js';
import type { Logger } from '../shared/logger.js';
import { setServerCertificate } from '../shared/tls/server-certificate.js';
import { VERSION } from '../shared/version.js';
import type { SessionView } from '../shared/wire/overview.js';
import { type CheckRunner, checkRunner } from './checks/run.js';
import type { AgentSettings } from './config.js';
import { type BellStore, Bells } from './domain/bells.js';
import type { Clock } from './domain/clock.js';
import { ContainerControl } from './domain/container-service.js';
import { type ContainerEngine, ContainerWatch } from './domain/container-watch.js';
import { OverviewSource, type SystemProbe } from './domain/overview.js';
import type { ProcessSupervisor } from './domain/process-service.js';
import { type ActionOutcome, Services } from './domain/services.js';
import { type SourceReader, SourceWatch } from './domain/source-watch.js';
import type { Spawner } from './domain/spawner.js';
import { bellRoutes } from './http/bell-routes.js';
import { checkRoutes } from './http/check-routes.js';
import { doRoutes } from './http/do-routes.js';
import { healthRoutes } from './http/health-routes.js';
import { openApiRoutes } from './http/openapi-routes.js';
import { overviewRoutes } from './http/overview-routes.js';
import { proxyRoutes } from './http/proxy-routes.js';
import { type UpdateControl, updateRoutes } from './http/update-routes.js';

/** What an agent is built from: its settings and its ways to the outside world. */
export interface AgentDeps {
  settings: AgentSettings;
  logger: Logger;
  clock: Clock;
  spawner: Spawner;
  probe: SystemProbe;
  /**
   * The overview's background sources (GPUs, containers, processes, …), each read once per its
   * interval; a field without a source is never in the overview.
   */
  sources?: readonly SourceSpec[];
  /**
   * The Docker Engine API (Docker or Podman): the overview's `containers`, read every
   * `sampleIntervalMs`, and the services of kind container. None: neither.
   */
  containerEngine?: ContainerEngine;
  /**
   * Updates from the board: the overview's fields about the agent itself, POST /api/update, and
   * the board's first overview request (which confirms a polled agent's new file on trial).
   */
  updates?: UpdateControl & { fields(): Record<string, unknown>; boardRead(): void };
  /** Runs the checks the board hands (tests inject one with their own run); default: runCheck. */
  checks?: CheckRunner;
  /** Where the latest bells are kept across restarts, and what it held at start. None: memory. */
  bellStore?: { store: BellStore; kept: readonly SessionView[] };
}

/** One background source: the overview field it fills, its reader and how often it is read. */
export interface SourceSpec {
  field: string;
  reader: SourceReader<unknown>;
  intervalMs: number;
}

/** A built agent: its HTTP app (not listening) and the domain parts main needs. */
export interface Agent {
  app: FastifyInstance;
  services: Services;
  overview: OverviewSource;
  /** The checks the board handed, run at their intervals (main stops it). */
  checks: CheckRunner;
  /** Read in the background once started (main starts and stops them). */
  sources: readonly SourceWatch<unknown>[];
  /** Runs an action handed over by the board, under the board key's policy. */
  actForBoard(what: string, action: 'start' | 'stop'): Promise<ActionOutcome>;
  /**
   * Takes a reloaded config: the token, the board key, the services and the certificate, in
   * place, with no request dropped. Returns the process services no longer published (still
   * running, for the caller to stop). Fields that need a restart must hold their running values.
   */
  reconfigure(next: AgentSettings): { removed: ProcessSupervisor[] };
  /** Stops honouring the board key (the board revoked it); the agent token still works. */
  dropBoardKey(): void;
}

/** An agent built without updates (tests): POST /api/update is always 409. */
const UPDATES_OFF: UpdateControl = {
  request: () => 'updates from the board are off on this agent (update_from_board in its config)',
};

/** Idle keep-alive connections stay open this long: longer than any usual sweep interval. */
export const AGENT_KEEP_ALIVE_MS = 65_000;

/** Builds an agent's Fastify instance with all its routes; nothing listens or runs yet. */
export async function buildAgent(deps: AgentDeps): Promise<Agent> {
  const { settings } = deps;
  // Read by the token rules at each request: a reload replaces the credentials in place.
  const credentials = {
    token: settings.token,
    boardKey: settings.boardKey,
    bellToken: settings.bellToken,
    limiter: new FailureLimiter(() => deps.clock.now()),
  };
  // The config's labels, replaced in place by a reload: the next overview carries them.
  let labels = settings.labels;
  const specs = [...(deps.sources ?? [])];
  let containers: ContainerControl | undefined;
  if (deps.containerEngine !== undefined) {
    const watch = new ContainerWatch(
      deps.containerEngine,
      deps.clock,
      () => deps.probe.cpus().length,
    );
    containers = new ContainerControl(deps.containerEngine, watch);
    specs.push({ field: 'containers', reader: watch, intervalMs: settings.sampleIntervalMs });
  }
  const services = new Services(settings.services, {
    machine: settings.name,
    spawner: deps.spawner,
    clock: deps.clock,
    ...(containers === undefined ? {} : { containers }),
  });
  const bells = new Bells(
    deps.clock,
    undefined,
    deps.bellStore?.store ?? null,
    deps.bellStore?.kept ?? [],
    (error) => deps.logger.error({ err: error }, 'cannot keep the bells in data_dir'),
  );
  const sources = specs.map((spec) => new SourceWatch<unknown>({ ...spec, clock: deps.clock }));
  const checks = deps.checks ?? checkRunner(deps.clock);
  const overview = new OverviewSource({
    name: settings.name,
    version: VERSION,
    probe: deps.probe,
    services,
    bells,
    clock: deps.clock,
    // The checks' results and version ride in every overview (and so in every report).
    sources: [...sources, checks],
    labels: () => labels,
    ...(deps.updates === undefined ? {} : { self: () => deps.updates?.fields() ?? {} }),
  });
  const app = await createHttpApp({
    logger: deps.logger,
    tls: settings.tls,
    // The board polls every sweep_interval (5 s by default) over one kept-alive connection;
    // closing idle connections after 5 s would make it open a new one for nearly every poll.
    keepAliveTimeoutMs: AGENT_KEEP_ALIVE_MS,
    openapi: {
      title: 'Panoptes',
      version: VERSION,
      description:
        'The Panoptes agent: the overview of one machine, the actions it publishes, the bells ' +
        'of its sessions and a pass-through at /proxy/.',
      bearerDescription: 'the agent token (or, where stated, the board key or the bell token)',
      queryDescription:
        'the agent token (or, where stated, the board key or the bell token) as ?token=',
    },
  });
  await app.register(healthRoutes);
  const updates = deps.updates;
  await app.register(overviewRoutes, {
    credentials,
    source: overview,
    ...(updates === undefined ? {} : { boardRead: () => updates.boardRead() }),
  });
  await app.register(bellRoutes, { credentials, bells });
  await app.register(doRoutes, { credentials, services });
  await app.register(updateRoutes, { credentials, updates: updates ?? UPDATES_OFF });
  await app.register(checkRoutes, { credentials, take: (handed) => checks.take(handed) });
  await app.register(openApiRoutes, { credentials });
  await app.register(proxyRoutes, {
    credentials,
    upstream: settings.proxy,
    machine: settings.name,
  });
  return {
    app,
    services,
    overview,
    checks,
    sources,
    actForBoard: (what, action) => services.act(what, action, 'board'),
    reconfigure(next) {
      credentials.token = next.token;
      credentials.boardKey = next.boardKey;
      credentials.bellToken = next.bellToken;
      labels = next.labels;
      if (next.tls !== null) setServerCertificate(app.server, next.tls);
      return services.reconfigure(next.services);
    },
    dropBoardKey() {
      credentials.boardKey = null;
    },
  };
}
