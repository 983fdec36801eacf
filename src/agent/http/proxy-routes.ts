import type {} from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../shared/http/errors.js';
import { type Credentials, isCredential } from './auth.js';

export const PROXY_PREFIX = '/proxy';

export interface ProxyOptions {
  credentials: Credentials;
  /** The upstream, e.g. http://127.0.0.1:8080; null when none is configured. */
  upstream: string | null;
  machine: string;
}

/**
 * /proxy/… passes through (HTTP and WebSocket) to the configured upstream, with no token: the one
 * path outside the token rule. /proxy/x?q goes to {upstream}/x?q. The Authorization header is
 * never forwarded, nor a `token` query parameter whose value is one of the agent's credentials.
 */
export async function proxyRoutes(app: FastifyInstance, options: ProxyOptions): Promise<void> {
  // Proxied routes are no part of the agent's API description.
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  const { upstream, credentials } = options;
  if (upstream === null) {
    const notConfigured = async () => {
      throw errors.notFound(`No proxy upstream is configured on ${options.machine}`);
    };
    app.all(PROXY_PREFIX, notConfigured);
    app.all(`${PROXY_PREFIX}/*`, notConfigured);
    return;
  }
  // The proxy streams bodies through as they are: no parsing in this scope.
  app.removeAllContentTypeParsers();
  const queryString = (_search: string | undefined, reqUrl: string) =>
    withoutCredentials(reqUrl, credentials);
  // Loaded only when configured: the proxy and its HTTP client weigh some MB of a resting agent.
  const { default: proxy } = await import('@fastify/http-proxy');
  await app.register(proxy, {
    upstream,
    prefix: PROXY_PREFIX,
    websocket: true,
    disableRequestLogging: true,
    undici: { connectTimeout: 5000, headersTimeout: 60_000, bodyTimeout: 300_000 },
    replyOptions: {
      retryDelay: () => null,
      queryString,
      rewriteRequestHeaders: (_request, headers) => {
        const { authorization: _dropped, ...rest } = headers;
        return rest;
      },
      onError: (reply, { error }) => {
        const timedOut = (error as { statusCode?: number }).statusCode === 504;
        const failure = timedOut
          ? errors.gatewayTimeout('The proxy upstream did not answer in time')
          : errors.badGateway('The proxy upstream is not reachable');
        void reply.code(failure.statusCode).send({ detail: failure.message });
      },
    },
    // The WebSocket client sends only the cookie header on, never Authorization.
    wsClientOptions: { queryString },
  });
}

/** The query string of `reqUrl` (without `?`) minus every `token` parameter that is a credential. */
export function withoutCredentials(reqUrl: string, credentials: Credentials): string {
  const at = reqUrl.indexOf('?');
  if (at < 0) return '';
  return reqUrl
    .slice(at + 1)
    .split('&')
    .filter((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      if (decodeOr(name) !== 'token' || eq < 0) return true;
      return !isCredential(decodeOr(pair.slice(eq + 1)), credentials);
    })
    .join('&');
}

function decodeOr(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
