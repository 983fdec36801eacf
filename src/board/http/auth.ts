import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../shared/http/errors.js';
import type { FailureLimiter } from '../../shared/http/failure-limiter.js';
import { NO_SECURITY } from '../../shared/http/openapi.js';
import { digestEquals, presentedToken, tokenDigest } from '../../shared/http/tokens.js';
import type { Board } from '../domain/board.js';
import type { Who } from '../schemas.js';

/** Which credential a route takes: none, the board token, or either token (reports). */
export type Access = 'open' | 'board' | 'report';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    who: Who;
  }
}

export interface AuthOptions {
  boardToken: string;
  registrationToken: string | null;
  board: Board;
  limiter: FailureLimiter;
}

/** The token rule, for a request handled beside Fastify's pipeline (report-fast-path.ts). */
export interface TokenRule {
  /**
   * Who the request is when the rule lets it through, else null: the request is to be refused,
   * which only the route's own hook does (it journals the refusal and counts the failure).
   */
  acceptedAs(address: string, authorization: string | undefined, access: Access): Who | null;
  /** Whether `token` opens the board now (a connection opened with an older one is closed). */
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

/**
 * Adds the token rule to every route as it is registered: route-level, so an unknown path
 * is a 404 without asking for a token, as in FastAPI. Routes default to the board token.
 */
export function installAuth(app: FastifyInstance, options: AuthOptions): TokenRule {
  app.decorateRequest('who', 'anonymous');
  // Known tokens are hashed once (a few entries: the tokens of the config, old and new).
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
  // Tokens presented and accepted, with their digests: each report presents one of a few
  // tokens, and hashing it again was ~3 µs of each. Only accepted tokens are kept (a guess
  // costs its hash, and cannot fill the map); the comparison stays that of the digests.
  const accepted = new Map<string, Buffer>();
  const digests: Digests = {
    known: digestOf,
    presented: (token) => accepted.get(token) ?? tokenDigest(token),
    accepted: (token, digest) => {
      if (accepted.has(token)) return;
      if (accepted.size >= 16) accepted.clear();
      accepted.set(token, digest);
    },
  };
  app.addHook('onRoute', (route) => {
    const access = route.config?.access ?? 'board';
    if (access === 'open') {
      // The description says so as the rule does: no token, and none of its refusals.
      if (route.schema !== undefined) route.schema = { ...route.schema, security: NO_SECURITY };
      return;
    }
    // Callback style, synchronous when the token is good: no promise per request on the
    // report path (bench: reports). Refusals are journaled first, then answered.
    const check = (
      request: FastifyRequest,
      _reply: FastifyReply,
      done: (error?: Error) => void,
    ): void => {
      const refusal = authenticate(request, access, options, digests);
      if (refusal === null) done();
      else refusal.then(done, done);
    };
    const existing = route.onRequest;
    route.onRequest = existing === undefined ? [check] : [check, ...[existing].flat()];
  });
  return {
    acceptedAs: (address, authorization, access) =>
      acceptedAs(address, presentedToken(authorization, {}), access, options, digests),
    opensBoard: (token) =>
      digestEquals(digests.presented(token), digests.known(options.boardToken)),
  };
}

/** The digests tokens are compared by: of known tokens, and of presented ones (cached). */
interface Digests {
  known(token: string): Buffer;
  presented(token: string): Buffer;
  /** `token` was accepted: its digest may be kept. */
  accepted(token: string, digest: Buffer): void;
}

/** Who a request with `token` is when the rule lets it through (not blocked, a good token). */
function acceptedAs(
  address: string,
  token: string | null,
  access: Access,
  options: AuthOptions,
  digests: Digests,
): Who | null {
  if (token === null || options.limiter.blockedFor(address) > 0) return null;
  const presented = digests.presented(token);
  let who: Who | null = null;
  if (digestEquals(presented, digests.known(options.boardToken))) who = 'board';
  else if (
    access === 'report' &&
    options.registrationToken !== null &&
    digestEquals(presented, digests.known(options.registrationToken))
  ) {
    who = 'registration';
  }
  if (who !== null) digests.accepted(token, presented);
  return who;
}

/** null when the request may go on; else the error to answer, once the refusal is journaled. */
function authenticate(
  request: FastifyRequest,
  access: Access,
  options: AuthOptions,
  digests: Digests,
): Promise<Error> | null {
  const address = request.clientAddress;
  const token = presentedToken(request.headers.authorization, request.query);
  const who = acceptedAs(address, token, access, options, digests);
  if (who !== null) {
    request.who = who;
    return null;
  }
  const wait = options.limiter.blockedFor(address);
  if (wait > 0) return Promise.resolve(errors.tooManyRequests(wait));
  if (token === null) return Promise.resolve(errors.notAuthenticated());
  const isRegistration =
    options.registrationToken !== null &&
    digestEquals(tokenDigest(token), digests.known(options.registrationToken));
  return refuse(request, address, isRegistration, options);
}

async function refuse(
  request: FastifyRequest,
  address: string,
  isRegistration: boolean,
  options: AuthOptions,
): Promise<Error> {
  const path = request.url.split('?')[0] ?? '';
  if (isRegistration) {
    await options.board.refusedToken(address, request.method, path, 403);
    return errors.forbidden('The registration token only opens POST /api/report');
  }
  options.limiter.fail(address);
  await options.board.refusedToken(address, request.method, path, 401);
  return errors.notAuthenticated();
}
