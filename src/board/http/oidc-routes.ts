import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../shared/http/errors.js';
import { Type } from '../../shared/typebox.js';
import type { Access } from '../auth/access.js';
import { readCookie, sessionCookie } from '../auth/cookies.js';
import { OidcRefused, type OidcSignIn, OidcUnavailable, PENDING_MS } from '../auth/oidc.js';
import { admitOidc } from '../auth/oidc-admit.js';
import { ANONYMOUS_WHO } from '../domain/who.js';
import { escapeEntities } from '../notify/markup.js';
import { UI_SECURITY_HEADERS } from './ui-routes.js';

export interface OidcRouteOptions {
  access: Access;
  oidc: OidcSignIn;
  secure(): boolean;
  /** The board's origin as configured (`public_url`), or null: the request's. */
  publicOrigin(): string | null;
}

/** The cookie that ties the provider's answer to the browser that started the sign-in. */
function pendingCookieName(secure: boolean): string {
  return secure ? '__Host-panoptes-oidc' : 'panoptes-oidc';
}

function pendingCookie(value: string, secure: boolean, maxAgeS: number): string {
  const parts = [`${pendingCookieName(secure)}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  parts.push(`Max-Age=${maxAgeS}`);
  return parts.join('; ');
}

/**
 * A return path on this board, else `/`: a path (not `//host`, not `/\host`, no backslash or
 * control character a browser could read as another origin), at most 2 KiB.
 */
export function safeReturn(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length > 2048) return '/';
  if (!raw.startsWith('/') || raw.startsWith('//')) return '/';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) return '/';
  const base = 'http://board.invalid';
  const url = new URL(raw, base);
  return url.origin === base ? `${url.pathname}${url.search}${url.hash}` : '/';
}

/** The board's origin as the browser sees it: `public_url`, else the scheme and Host. */
function boardOrigin(request: FastifyRequest, options: OidcRouteOptions): string {
  const configured = options.publicOrigin();
  if (configured !== null) return configured;
  const scheme = options.secure() || request.protocol === 'https' ? 'https' : 'http';
  return `${scheme}://${request.headers.host ?? '127.0.0.1'}`;
}

/** The small page a refused sign-in shows (the reason is escaped: it may carry the provider's name). */
function refusalPage(reply: FastifyReply, reason: string): FastifyReply {
  const text = escapeEntities(reason);
  return reply
    .code(403)
    .headers(UI_SECURITY_HEADERS)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not signed in</title></head>` +
        `<body><h1>Not signed in</h1><p data-testid="oidc-refused">${text}</p>` +
        `<p><a href="/">Back to the board</a></p></body></html>`,
    );
}

/** GET /auth/oidc/login and GET /auth/oidc/callback: sign-in with the identity provider. */
export async function oidcRoutes(app: FastifyInstance, options: OidcRouteOptions): Promise<void> {
  const { access, oidc } = options;
  const hidden = { hide: true };
  app.get(
    '/auth/oidc/login',
    {
      config: { access: 'open' },
      schema: {
        ...hidden,
        querystring: Type.Object({ return: Type.Optional(Type.String()) }),
      },
    },
    async (request, reply) => {
      const settings = access.settings().oidc;
      if (settings === null) throw errors.notFound('No identity provider is configured');
      const query = request.query as { return?: string };
      const redirectUri = `${boardOrigin(request, options)}/auth/oidc/callback`;
      let started: { url: string; handle: string };
      try {
        started = await oidc.begin(settings, redirectUri, safeReturn(query.return));
      } catch (error) {
        if (error instanceof OidcUnavailable) {
          await access.note(ANONYMOUS_WHO, 'oidc', 'refused', 503, `provider: ${error.message}`);
          throw errors.unavailable('The identity provider cannot be reached; try again later');
        }
        throw error;
      }
      reply.header(
        'set-cookie',
        pendingCookie(started.handle, options.secure(), PENDING_MS / 1000),
      );
      reply.header('cache-control', 'no-store');
      return reply.redirect(started.url, 302);
    },
  );
  app.get(
    '/auth/oidc/callback',
    {
      config: { access: 'open' },
      schema: { ...hidden, querystring: Type.Object({}, { additionalProperties: true }) },
    },
    async (request, reply) => {
      const settings = access.settings().oidc;
      if (settings === null) throw errors.notFound('No identity provider is configured');
      const secure = options.secure();
      const handle = readCookie(request.headers.cookie, pendingCookieName(secure));
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      reply.header('cache-control', 'no-store');
      const cleared = pendingCookie('', secure, 0);
      let identity: Awaited<ReturnType<OidcSignIn['finish']>>;
      try {
        identity = await oidc.finish(settings, handle, query);
      } catch (error) {
        reply.header('set-cookie', cleared);
        if (error instanceof OidcUnavailable) {
          await access.note(ANONYMOUS_WHO, 'oidc', 'refused', 503, `provider: ${error.message}`);
          throw errors.unavailable('The identity provider cannot be reached; try again later');
        }
        if (error instanceof OidcRefused) {
          await access.note(ANONYMOUS_WHO, 'oidc', 'refused', 403, error.message);
          return refusalPage(reply, 'The sign-in did not check out; start again from the board.');
        }
        throw error;
      }
      const admitted = await admitOidc(access, settings, identity);
      if (!admitted.ok) {
        reply.header('set-cookie', cleared);
        await access.note(ANONYMOUS_WHO, identity.name.slice(0, 128), 'refused', 403, 'via oidc');
        return refusalPage(reply, admitted.reason);
      }
      const who = { word: 'board', actor: { kind: 'person', name: identity.name } } as const;
      await access.note(who, identity.name, 'signed_in', 302, 'via oidc');
      const maxAge = access.settings().sessions.absoluteMs / 1000;
      reply.header('set-cookie', [cleared, sessionCookie(admitted.secret, secure, maxAge)]);
      return reply.redirect(identity.returnTo, 302);
    },
  );
}

/** Where POST /auth/logout sends a person who signed in with the provider, or null. */
export async function oidcLogoutUrl(
  request: FastifyRequest,
  options: OidcRouteOptions,
): Promise<string | null> {
  const settings = options.access.settings().oidc;
  if (settings === null || request.actor.via !== 'oidc') return null;
  return options.oidc.logoutUrl(settings, `${boardOrigin(request, options)}/`);
}
