import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/clock.js';
import { TrustedProxies } from '../../shared/http/client-address.js';
import { FailureLimiter } from '../../shared/http/failure-limiter.js';
import { createHttpApp } from '../../shared/http/http-app.js';
import type { Logger } from '../../shared/logger.js';
import { VERSION } from '../../shared/version.js';
import { type GuardOptions, installGuard, TokenChanges, type TokenRule } from '../auth/guard.js';
import { LocalPeople } from '../auth/local-people.js';
import { LocalSignIn } from '../auth/local-sign-in.js';
import { credentialCheck } from '../auth/still-valid.js';
import type { CheckHistoryPort } from '../checks/ports.js';
import type { PushMonitor } from '../checks/push-monitor.js';
import type { Membership } from '../cluster/membership.js';
import type { BoardSettings } from '../config/config.js';
import type { AgentFiles } from '../enroll/agent-files.js';
import { enrollRoutes } from '../enroll/enroll-routes.js';
import { Enroller } from '../enroll/enroller.js';
import type { SumsSigner } from '../enroll/sums-signer.js';
import type { History } from '../history/history.js';
import { actionRoutes } from '../http/action-routes.js';
import { boardRoutes } from '../http/board-routes.js';
import { checkHistoryRoutes } from '../http/check-history-routes.js';
import { checkMineRoutes } from '../http/check-mine-routes.js';
import { checkRoutes } from '../http/check-routes.js';
import { clusterRoutes } from '../http/cluster-routes.js';
import { historyRoutes } from '../http/history-routes.js';
import { journalRoutes } from '../http/journal-routes.js';
import { labelRoutes } from '../http/label-routes.js';
import { liveRoutes } from '../http/live-routes.js';
import { localSignInRoutes, requestOrigin } from '../http/local-sign-in-routes.js';
import { mcpRoutes } from '../http/mcp-routes.js';
import { meRoutes, methodRoutes } from '../http/me-routes.js';
import { metaRoutes } from '../http/meta-routes.js';
import { metricsRoutes } from '../http/metrics-routes.js';
import { notifyRoutes } from '../http/notify-routes.js';
import { type OidcRouteOptions, oidcLogoutUrl, oidcRoutes } from '../http/oidc-routes.js';
import { peopleRoutes } from '../http/people-routes.js';
import { pushBeatRoutes } from '../http/push-beat-routes.js';
import { pushRoutes } from '../http/push-routes.js';
import { installReportFastPath } from '../http/report-fast-path.js';
import { selectorSilenceRoutes } from '../http/selector-silence-routes.js';
import { sessionRoutes } from '../http/session-routes.js';
import { silenceRoutes } from '../http/silence-routes.js';
import { tokenRoutes } from '../http/token-routes.js';
import { uiRoutes } from '../http/ui-routes.js';
import { updateRoutes } from '../http/update-routes.js';
import { Languages } from '../lang/languages.js';
import type { MetricsExporter } from '../metrics/metrics-exporter.js';
import type { Notifier } from '../notify/notifier.js';
import type { WebPush } from '../notify/push.js';
import type { Domain } from './build-domain.js';
import type { CurrentSettings } from './current-settings.js';

/** The HTTP app and what a reload changes in it. */
export interface Http {
  app: FastifyInstance;
  /** The reverse proxies the board believes (`set()` swaps the list). */
  trustedProxies: TrustedProxies;
  /** Read by the guard at each request: a reload replaces the two tokens in place. */
  auth: GuardOptions;
  /** auth.trusted_header's proxies (`set()` swaps the list). */
  headerProxies: TrustedProxies;
  tokens: TokenRule;
  /** Told when the board token changes (live clients holding the old one are closed). */
  tokenChanges: TokenChanges;
}

/** Builds the HTTP app (TLS, keep-alive, OpenAPI) and its token rule, before any route. */
export async function openHttp(
  current: CurrentSettings,
  logger: Logger,
  domain: Domain,
  clock: Clock,
): Promise<Http> {
  const settings = current.get();
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
        'it sends {"type":"board","board":…} once, then {"type":"machine","machine":…}, {"type":"removed","name":…} (forgotten) and {"type":"journal","entry":…}. ' +
        'With ?selector= (a label selector; a bad one refuses the handshake with 422 naming the position) only the selected machines are sent, ' +
        'and {"type":"left","name":…} when one stops being selected (its labels changed; still on the board). ' +
        'The client may send {"type":"select","selector":…}: answered with a fresh board message of the selected machines, ' +
        'or {"type":"error","detail":"selector: … at position N"} (the selection kept) (docs/api.md, "GET /api/live"). ' +
        'MCP: POST /mcp is the Model Context Protocol endpoint (Streamable HTTP, stateless; the board token or an API token, whose role decides the tools offered), not an HTTP operation either: ' +
        'JSON-RPC messages for the tools list_machines, list_sessions, acknowledge_session, read_journal and do_action (docs/api.md, "MCP").',
      bearerDescription:
        'Authorization: Bearer <board token> (or the registration token, for POST /api/report only)',
      queryDescription:
        '?token=<board token> (or the registration token, for POST /api/report only)',
    },
  });
  const headerProxies = new TrustedProxies(settings.auth.trustedHeader?.proxies ?? []);
  const auth: GuardOptions = {
    boardToken: settings.boardToken,
    registrationToken: settings.registrationToken,
    board: domain.board,
    limiter: new FailureLimiter(() => clock.now()),
    access: domain.access,
    machine: (name) => domain.registry.get(name),
    secure: () => isSecure(current.get()),
    publicOrigin: () => {
      const url = current.get().publicUrl;
      return url === null ? null : new URL(url).origin;
    },
    headerProxy: (address) => headerProxies.trusts(address),
  };
  const tokens = installGuard(app, auth);
  return {
    app,
    trustedProxies,
    headerProxies,
    auth,
    tokens,
    tokenChanges: new TokenChanges(),
  };
}

/** Whether browsers reach the board over HTTPS (its own TLS, or a proxy's: `public_url`). */
export function isSecure(settings: BoardSettings): boolean {
  return settings.tls !== null || (settings.publicUrl?.startsWith('https:') ?? false);
}

/** What the routes serve. */
export interface Served {
  domain: Domain;
  exporter: MetricsExporter;
  notifier: Notifier;
  /** Web Push: the key and the browsers' subscriptions (the /api/push routes). */
  push: WebPush;
  /** Push checks' heartbeats (GET|POST /api/push/{token}). */
  beats: PushMonitor;
  history: History | null;
  /** The checks' history (uptime), or null: none. */
  checkHistory?: CheckHistoryPort | null;
  /** Why history is unavailable (503), or null. */
  historyUnavailable: string | null;
  membership: Membership;
}

/** Where the files the board serves are. */
export interface ServedFiles {
  builtinLangDir: string;
  uiDir: string;
  /** The agent files served at /agent/ (the build's dist/agent-file, or `agent_files:`). */
  agentFiles: AgentFiles;
  /** Signs the served files' SHA256SUMS (the key agents pin as update_key). */
  signer: SumsSigner;
}

/** Registers every route: the API, the live socket, enrolment, the UI, the report fast path. */
export async function registerRoutes(
  http: Http,
  served: Served,
  files: ServedFiles,
  current: CurrentSettings,
  logger: Logger,
): Promise<void> {
  const { app, tokens, tokenChanges, trustedProxies } = http;
  const { board, registry, events, enrollments, silences, inbox } = served.domain;
  const { exporter, notifier, history, membership } = served;
  const languages = new Languages(files.builtinLangDir, current.get().configDir, logger);
  await app.register(metaRoutes, { languages });
  await app.register(boardRoutes, { board });
  await app.register(actionRoutes, { board });
  await app.register(journalRoutes, { board });
  await app.register(liveRoutes, {
    registry,
    events,
    tokens,
    tokenChanges,
    credentialCheck: (request) =>
      credentialCheck(served.domain.access, request, isSecure(current.get())),
  });
  await app.register(metricsRoutes, {
    exporter,
    machine: (name) => registry.get(name),
    checks: served.domain.checks,
  });
  await app.register(notifyRoutes, { notifier });
  await app.register(silenceRoutes, { silences });
  await app.register(selectorSilenceRoutes, {
    silences: served.domain.selectorSilences,
    machines: () => registry.all(),
  });
  await app.register(labelRoutes, {
    labels: served.domain.labels,
    registry,
    groups: () => current.get().groups,
  });
  const checkHistory = served.checkHistory ?? history?.checks ?? null;
  await app.register(checkRoutes, {
    checks: served.domain.checks,
    registry,
    history: checkHistory,
  });
  await app.register(checkMineRoutes, {
    handing: served.domain.handing,
    registry,
    board,
    clock: served.domain.clock,
  });
  await app.register(checkHistoryRoutes, {
    checks: served.domain.checks,
    registry,
    history,
    unavailable: served.historyUnavailable,
  });
  await app.register(updateRoutes, { updates: served.domain.updates });
  await app.register(pushRoutes, { push: served.push });
  await app.register(pushBeatRoutes, { monitor: served.beats });
  await app.register(sessionRoutes, { inbox });
  await app.register(mcpRoutes, { board, inbox, checks: served.domain.checks, checkHistory });
  await app.register(historyRoutes, { registry, history, unavailable: served.historyUnavailable });
  await app.register(clusterRoutes, { membership });
  const oidc: OidcRouteOptions = {
    access: served.domain.access,
    oidc: served.domain.access.oidc,
    secure: () => isSecure(current.get()),
    publicOrigin: http.auth.publicOrigin,
  };
  await app.register(oidcRoutes, oidc);
  await app.register(meRoutes, {
    access: served.domain.access,
    secure: () => isSecure(current.get()),
    providerLogout: (request) => oidcLogoutUrl(request, oidc),
  });
  await app.register(methodRoutes, { access: served.domain.access });
  await app.register(tokenRoutes, { access: served.domain.access });
  // Local people: the admin's people routes and the password and passkey sign-in routes.
  const place = { secure: http.auth.secure, publicOrigin: http.auth.publicOrigin };
  await app.register(peopleRoutes, {
    people: new LocalPeople(served.domain.access),
    origin: (request) => requestOrigin(request, place),
  });
  await app.register(localSignInRoutes, {
    access: served.domain.access,
    signIn: new LocalSignIn(served.domain.access),
    place,
  });
  const { agentFiles, signer } = files;
  await app.register(enrollRoutes, {
    enroller: new Enroller({
      board,
      enrollments,
      agentFiles,
      signer,
      settings: () => current.get(),
      labels: served.domain.labels,
    }),
    enrollments,
    agentFiles,
    signer,
    address: () => {
      const { publicUrl, tls } = current.get();
      return { publicUrl, tls: tls !== null };
    },
  });
  await app.register(uiRoutes, { dir: files.uiDir });
  installReportFastPath(app, { board, tokens, trustedProxies, logger });
}
