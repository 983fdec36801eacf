import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { errors } from '../../shared/http/errors.js';
import type { FailureLimiter } from '../../shared/http/failure-limiter.js';
// For `request.clientAddress`, which createHttpApp decorates every request with.
import type {} from '../../shared/http/http-app.js';
import { presentedToken, tokenEquals } from '../../shared/http/tokens.js';
import type { Role } from '../domain/services.js';

/** The two credentials of an agent: the operator token and the (optional) board key. */
export interface Credentials {
  token: string;
  boardKey: string | null;
  /** Counts wrong tokens per address; too many in a minute get 429 (as on the board). */
  limiter?: FailureLimiter;
}

/** Which credential a request presents (header or `?token=`), or null for none or a wrong one. */
export function roleOf(request: FastifyRequest, credentials: Credentials): Role | null {
  const presented = presentedToken(request.headers.authorization, request.query);
  if (presented === null) return null;
  // Both comparisons always run, so the time taken does not tell which one matched.
  const operator = tokenEquals(presented, credentials.token);
  const board = credentials.boardKey !== null && tokenEquals(presented, credentials.boardKey);
  if (operator) return 'operator';
  return board ? 'board' : null;
}

/** Whether a string is one of the agent's credentials (to keep it from reaching an upstream). */
export function isCredential(value: string, credentials: Credentials): boolean {
  const operator = tokenEquals(value, credentials.token);
  const board = credentials.boardKey !== null && tokenEquals(value, credentials.boardKey);
  return operator || board;
}

/**
 * A route-level onRequest hook: 401 without a valid credential; 403 for the board key on a route
 * that only the operator token opens. Route-level, so an unknown path is 404 without a token.
 */
export function requireRole(
  credentials: Credentials,
  allow: readonly Role[],
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
      throw errors.forbidden('The board key does not open this endpoint; it needs the agent token');
    }
  };
}
