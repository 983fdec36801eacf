import type { FastifyRequest } from 'fastify';
import { presentedToken } from '../../shared/http/tokens.js';
import type { Access } from './access.js';
import { cookieName, readCookie } from './cookies.js';

/**
 * How a connection that outlives its request (the live feed) asks again whether the session or
 * API token it was opened with still holds: null when nothing can end it but a reload (the board
 * token) or the proxy (a trusted header).
 */
export function credentialCheck(
  access: Access,
  request: FastifyRequest,
  secure: boolean,
): (() => Promise<boolean>) | null {
  const { actor } = request;
  if (actor.tokenId !== null) {
    const token = presentedToken(request.headers.authorization, request.query);
    if (token === null) return null;
    return async () => (await access.tokens.find(token)) !== null;
  }
  if (actor.session !== null) {
    const secret = readCookie(request.headers.cookie, cookieName(secure));
    if (secret === null) return null;
    return async () => (await access.sessions.find(secret)) !== null;
  }
  return null;
}
