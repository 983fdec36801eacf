import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors, type HttpError } from '../../shared/http/errors.js';
import type { FailureLimiter } from '../../shared/http/failure-limiter.js';
import { NO_SECURITY } from '../../shared/http/openapi.js';
import { digestEquals, presentedToken, tokenDigest } from '../../shared/http/tokens.js';
import type { Board } from '../domain/board.js';
import { BOARD_WHO, registrationWho } from '../domain/who.js';
import type { Who } from '../schemas.js';
import type { Access } from './access.js';
import { type Actor, BOARD_ACTOR } from './actor.js';
import { TOKEN_PREFIX } from './api-tokens.js';
import { cookieName, readCookie } from './cookies.js';
import { headerActor } from './header-actor.js';
import { machineRefusal } from './machine-access.js';
import { isRole, type Role, Scope, type Scoped } from './roles.js';
import { sameOrigin } from './same-origin.js';

/**
 * What a route asks of its caller: nothing (`open`), a report's token (`report`: the board or
 * the registration token), or a role over some machine. Routes default to `admin`.
 */
export type RouteAccess = 'open' | 'report' | Role;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /** The path parameter naming the machine the route acts on: checked against the scope. */
    machine?: string;
    /** The route concerns the whole fleet (notifications, the cluster): an unscoped binding. */
    fleet?: boolean;
  }
  interface FastifyRequest {
    who: Who;
    actor: Actor;
  }
}

export interface GuardOptions {
  boardToken: string;
  registrationToken: string | null;
  board: Board;
  limiter: FailureLimiter;
  access: Access;
  /** A machine's name and board labels, or undefined when the board has no such machine. */
  machine(name: string): Scoped | undefined;
  /** Whether the board is served over HTTPS (directly, or behind a proxy: `public_url`). */
  secure(): boolean;
  /** The board's own origin as configured (`public_url`), or null: the request's Host. */
  publicOrigin(): string | null;
  /** Whether the socket's peer is one of auth.trusted_header's proxies. */
  headerProxy(address: string): boolean;
}

/** The token rule, for requests handled beside Fastify (the report fast path, the live feed). */
export interface TokenRule {
  /** Who a report with this Authorization is when it may go on, else null (Fastify refuses it). */
  acceptedAs(address: string, authorization: string | undefined, access: 'report'): Who | null;
  /** Whether `token` opens the board now (a feed opened with an older one is closed). */
  opensBoard(token: string): boolean;
}

/** Tells whoever holds connections opened by a token that the tokens changed (a reload). */
export class TokenChanges {
  private readonly listeners = new Set<() => void>();

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }
}

const NO_SCOPE = new Scope([]);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Turns each request into an actor and asks the one scope check (STYLE: one place decides):
 * route-level, so an unknown path is a 404 without asking for a credential, as in FastAPI.
 */
export function installGuard(app: FastifyInstance, options: GuardOptions): TokenRule {
  app.decorateRequest('who', null as unknown as Who);
  app.decorateRequest('actor', null as unknown as Actor);
  const known = new Map<string, Buffer>();
  const digestOf = (token: string): Buffer => {
    let digest = known.get(token);
    if (digest === undefined) {
      if (known.size > 16) known.clear();
      digest = tokenDigest(token);
      known.set(token, digest);
    }
    return digest;
  };
  const isBoardToken = (token: string) =>
    digestEquals(digestOf(token), digestOf(options.boardToken));
  const isRegistration = (token: string) =>
    options.registrationToken !== null &&
    digestEquals(digestOf(token), digestOf(options.registrationToken));
  app.addHook('onRoute', (route) => {
    const access = route.config?.access ?? 'admin';
    if (access === 'open') {
      if (route.schema !== undefined) route.schema = { ...route.schema, security: NO_SECURITY };
      return;
    }
    const check = (request: FastifyRequest, _reply: FastifyReply, done: (e?: Error) => void) => {
      const outcome = guard(request, access, options, isBoardToken, isRegistration);
      if (outcome === null) done();
      else if (outcome instanceof Error) done(outcome);
      else outcome.then((e) => done(e ?? undefined), done);
    };
    const existing = route.onRequest;
    route.onRequest = existing === undefined ? [check] : [check, ...[existing].flat()];
  });
  return {
    acceptedAs: (address, authorization) => {
      const token = presentedToken(authorization, {});
      if (token === null || options.limiter.blockedFor(address) > 0) return null;
      if (isBoardToken(token)) return BOARD_WHO;
      return isRegistration(token) ? registrationWho('') : null;
    },
    opensBoard: isBoardToken,
  };
}

type Outcome = null | HttpError | Promise<HttpError | null>;

/** null when the request may go on; else what to answer (a promise while a lookup runs). */
function guard(
  request: FastifyRequest,
  access: Exclude<RouteAccess, 'open'>,
  options: GuardOptions,
  isBoardToken: (token: string) => boolean,
  isRegistration: (token: string) => boolean,
): Outcome {
  const address = request.clientAddress;
  const wait = options.limiter.blockedFor(address);
  const token = presentedToken(request.headers.authorization, request.query);
  if (token !== null) {
    if (wait > 0) return errors.tooManyRequests(wait);
    if (isBoardToken(token)) return admit(request, BOARD_ACTOR, access, options);
    if (isRegistration(token)) {
      if (access === 'report') {
        request.who = registrationWho('');
        request.actor = { ...BOARD_ACTOR, name: 'registration', scope: NO_SCOPE, who: request.who };
        return null;
      }
      return refuse(request, address, 403, options);
    }
    if (!token.startsWith(TOKEN_PREFIX)) return refuse(request, address, 401, options);
    return options.access.tokens
      .find(token)
      .then((actor) =>
        actor === null
          ? refuse(request, address, 401, options)
          : admit(request, actor, access, options),
      );
  }
  const secret = readCookie(request.headers.cookie, cookieName(options.secure()));
  if (secret !== null) {
    return options.access.sessions
      .find(secret)
      .then((actor) =>
        actor === null ? errors.notAuthenticated() : admit(request, actor, access, options),
      );
  }
  const header = options.access.settings().trustedHeader;
  if (header !== null && options.headerProxy(request.socket.remoteAddress ?? '')) {
    const actor = headerActor(header, request.headers);
    if (actor !== null) return admit(request, actor, access, options);
  }
  if (wait > 0) return errors.tooManyRequests(wait);
  return errors.notAuthenticated();
}

/** The actor is known: what the route asks of it (its role, here, from here). */
function admit(
  request: FastifyRequest,
  actor: Actor,
  access: Exclude<RouteAccess, 'open'>,
  options: GuardOptions,
): HttpError | null {
  request.actor = actor;
  request.who = actor.who;
  const config = request.routeOptions.config;
  // Cookies and a proxy's headers come with every request a browser makes, from any site.
  const ambient = actor.session !== null || actor.via === 'header';
  const upgrade = request.headers.upgrade !== undefined;
  const fromHere = () => sameOrigin(request, options.publicOrigin(), options.secure());
  if (upgrade && request.headers.origin !== undefined && !fromHere())
    return errors.forbidden('Cross-site request refused');
  if (ambient && (upgrade || !SAFE_METHODS.has(request.method)) && !fromHere())
    return errors.forbidden('Cross-site request refused');
  if (access === 'report') {
    return actor === BOARD_ACTOR ? null : errors.forbidden('Only a machine reports');
  }
  const role: Role = isRole(access) ? access : 'admin';
  const scope = actor.scope;
  if (!scope.has(role) || (config.fleet === true && !scope.whole(role)))
    return errors.forbidden(`This needs the ${role} role`);
  const param = config.machine;
  if (param === undefined || scope.whole(role)) return null;
  const name = (request.params as Record<string, string | undefined>)[param] ?? '';
  return machineRefusal(scope, role, name, options.machine(name));
}

/** A credential was presented and is not good here: journaled first, then answered. */
async function refuse(
  request: FastifyRequest,
  address: string,
  status: 401 | 403,
  options: GuardOptions,
): Promise<HttpError> {
  const path = request.url.split('?')[0] ?? '';
  if (status === 403) {
    await options.board.refusedToken(address, request.method, path, 403);
    return errors.forbidden('The registration token only opens POST /api/report');
  }
  options.limiter.fail(address);
  await options.board.refusedToken(address, request.method, path, 401);
  return errors.notAuthenticated();
}
