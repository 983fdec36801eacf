import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { errors } from '../../shared/http/errors.js';
import type { FailureLimiter } from '../../shared/http/failure-limiter.js';
// For `request.clientAddress`, which createHttpApp decorates every request with.
import type {} from '../../shared/http/http-app.js';
import { presentedToken, tokenEquals } from '../../shared/http/tokens.js';
import type { Role } from '../domain/services.js';

/**
 * The credentials of an agent: the operator token, the (optional) board key, and the (optional)
 * bell token, which opens POST /api/bell alone.
 */
export interface Credentials {
  token: string;
  boardKey: string | null;
  bellToken?: string | null;
  /** Counts wrong tokens per address; too many in a minute get 429 (as on the board). */
  limiter?: FailureLimiter;
}

/** Who presents a credential: the operator, the board, or a hook that may only ring bells. */
export type Presenter = Role | 'bell';

/** Which credential `value` is, or null. */
function match(value: string, credentials: Credentials): Presenter | null {
  // Every comparison always runs, so the time taken does not tell which one matched.
  const operator = tokenEquals(value, credentials.token);
  const board = credentials.boardKey !== null && tokenEquals(value, credentials.boardKey);
  const bell =
    typeof credentials.bellToken === 'string' && tokenEquals(value, credentials.bellToken);
  if (operator) return 'operator';
  if (board) return 'board';
  return bell ? 'bell' : null;
}

/** Which credential a request presents (header or `?token=`), or null for none or a wrong one. */
export function roleOf(request: FastifyRequest, credentials: Credentials): Presenter | null {
  const presented = presentedToken(request.headers.authorization, request.query);
  return presented === null ? null : match(presented, credentials);
}

/** Whether a string is one of the agent's credentials (to keep it from reaching an upstream). */
export function isCredential(value: string, credentials: Credentials): boolean {
  return match(value, credentials) !== null;
}

/**
 * A route-level onRequest hook: 401 without a valid credential; 403 for the board key or the bell
 * token on a route they do not open. Route-level, so an unknown path is 404 without a token.
 */
export function requireRole(
  credentials: Credentials,
  allow: readonly Presenter[],
): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const wait = credentials.limiter?.blockedFor(request.clientAddress) ?? 0;
    if (wait > 0) throw errors.tooManyRequests(wait);
    const role = roleOf(request, credentials);
    if (role === null) {
      if (presentedToken(request.headers.authorization, request.query) !== null) {
        credentials.limiter?.fail(request.clientAddress);
        request.log.warn(
          { address: request.clientAddress, method: request.method },
          'wrong token refused',
        );
      }
      throw errors.notAuthenticated();
    }
    if (!allow.includes(role)) {
      throw errors.forbidden(
        role === 'bell'
          ? 'The bell token only opens POST /api/bell'
          : 'The board key does not open this endpoint; it needs the agent token',
      );
    }
  };
}
