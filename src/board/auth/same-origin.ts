import type { FastifyRequest } from 'fastify';

/**
 * Whether a request comes from the board's own pages (DESIGN 15: a request with the cookie that
 * changes anything, and every live feed). `Origin` must be the board's; without one, a
 * browser's `Sec-Fetch-Site: same-origin` says so; with neither, it is not believed.
 */
export function sameOrigin(
  request: FastifyRequest,
  publicOrigin: string | null,
  secure: boolean,
): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return request.headers['sec-fetch-site'] === 'same-origin';
  if (publicOrigin !== null && origin === publicOrigin) return true;
  const host = request.headers.host;
  if (host === undefined) return false;
  const scheme = secure || request.protocol === 'https' ? 'https' : 'http';
  return origin === `${scheme}://${host}` || origin === `${request.protocol}://${host}`;
}
