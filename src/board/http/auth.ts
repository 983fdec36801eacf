import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../shared/http/errors.js';
import type { FailureLimiter } from '../../shared/http/failure-limiter.js';
import { presentedToken, tokenEquals } from '../../shared/http/tokens.js';
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

/**
 * Adds the token rule to every route as it is registered: route-level, so an unknown path
 * is a 404 without asking for a token, as in FastAPI. Routes default to the board token.
 */
export function installAuth(app: FastifyInstance, options: AuthOptions): void {
  app.decorateRequest('who', 'anonymous');
  app.addHook('onRoute', (route) => {
    const access = route.config?.access ?? 'board';
    if (access === 'open') return;
    const check = async (request: FastifyRequest, _reply: FastifyReply) => {
      await authenticate(request, access, options);
    };
    const existing = route.onRequest;
    route.onRequest = existing === undefined ? [check] : [check, ...[existing].flat()];
  });
}

async function authenticate(
  request: FastifyRequest,
  access: Access,
  options: AuthOptions,
): Promise<void> {
  const address = request.clientAddress;
  const wait = options.limiter.blockedFor(address);
  if (wait > 0) throw errors.tooManyRequests(wait);
  const token = presentedToken(request.headers.authorization, request.query);
  const path = request.url.split('?')[0] ?? '';
  if (token !== null && tokenEquals(token, options.boardToken)) {
    request.who = 'board';
    return;
  }
  const isRegistration =
    token !== null &&
    options.registrationToken !== null &&
    tokenEquals(token, options.registrationToken);
  if (isRegistration && access === 'report') {
    request.who = 'registration';
    return;
  }
  if (token === null) throw errors.notAuthenticated();
  if (isRegistration) {
    await options.board.refusedToken(address, request.method, path, 403);
    throw errors.forbidden('The registration token only opens POST /api/report');
  }
  options.limiter.fail(address);
  await options.board.refusedToken(address, request.method, path, 401);
  throw errors.notAuthenticated();
}
