import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import * as client from 'openid-client';
import type { Clock } from '../../shared/clock.js';
import type { OidcSettings } from './auth-config.js';
import type { AuthTable } from './auth-table.js';
import { newSecret, secretDigest } from './secrets.js';

/** How long a sign-in may stay at the provider (its state, nonce and verifier are kept so long). */
export const PENDING_MS = 10 * 60_000;

/** The provider cannot be reached (discovery, its keys or its token endpoint): a 503. */
export class OidcUnavailable extends Error {}

/** The provider's answer does not check out (state, nonce, iss, aud, expiry, …): a 403 page. */
export class OidcRefused extends Error {}

/** A sign-in under way, kept in the store under the digest of the browser's cookie. */
interface Pending {
  state: string;
  nonce: string;
  verifier: string;
  return_to: string;
  redirect_uri: string;
}

/** Who the provider says signed in: the username claim and the groups claim. */
export interface OidcIdentity {
  name: string;
  groups: string[];
}

/**
 * The board's side of OpenID Connect (authorization code + PKCE S256, state and nonce) with
 * openid-client. The provider's metadata is discovered at the first sign-in, and again after a
 * failure (a provider that was down is asked again next time, never remembered as broken).
 */
export class OidcSignIn {
  private discovered: { key: string; config: Promise<client.Configuration> } | null = null;
  private sweptAt = 0;

  constructor(
    private readonly table: AuthTable,
    private readonly clock: Clock,
  ) {}

  /** Starts a sign-in: the provider's URL, and the secret the browser keeps in a cookie. */
  async begin(
    settings: OidcSettings,
    redirectUri: string,
    returnTo: string,
  ): Promise<{ url: string; handle: string }> {
    const config = await this.configuration(settings);
    const pending: Pending = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      return_to: returnTo,
      redirect_uri: redirectUri,
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: settings.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    const handle = newSecret();
    const now = this.clock.now();
    // Sign-ins never finished would stay: what has expired is dropped, at most once a minute.
    if (now - this.sweptAt > 60_000) {
      this.sweptAt = now;
      await this.table.sweep(now);
    }
    await this.table.put({
      kind: 'oidc',
      id: secretDigest(handle),
      body: JSON.stringify(pending),
      expires_at: now + PENDING_MS,
    });
    return { url: url.href, handle };
  }

  /**
   * Finishes a sign-in the browser came back with (`query`: the callback's query string):
   * the code exchanged at the token endpoint, the ID token checked (state, nonce, iss, aud,
   * expiry, signature) by openid-client. The pending sign-in is used once, whatever happens.
   */
  async finish(
    settings: OidcSettings,
    handle: string | null,
    query: string,
  ): Promise<OidcIdentity & { returnTo: string }> {
    if (handle === null) throw new OidcRefused('no sign-in was started in this browser');
    const id = secretDigest(handle);
    const record = await this.table.get('oidc', id, this.clock.now());
    if (record === null) throw new OidcRefused('the sign-in was not started here or took too long');
    await this.table.remove('oidc', id);
    const pending = JSON.parse(record.body) as Pending;
    const config = await this.configuration(settings);
    const current = new URL(pending.redirect_uri);
    current.search = query;
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw classify(error);
    }
    const idClaims = tokens.claims();
    if (idClaims === undefined) throw new OidcRefused('the provider gave no ID token');
    let claims: Record<string, unknown> = { ...idClaims };
    const wanted = [settings.usernameClaim, settings.groupsClaim ?? settings.usernameClaim];
    // Providers that keep profile claims out of the ID token give them at the userinfo endpoint.
    if (wanted.some((path) => claimAt(claims, path) === undefined)) {
      try {
        const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        claims = { ...info, ...claims };
      } catch (error) {
        throw classify(error);
      }
    }
    const name = claimAt(claims, settings.usernameClaim);
    if (typeof name !== 'string' || name === '')
      throw new OidcRefused(`the provider gave no ${settings.usernameClaim} claim`);
    return { name, groups: groupsOf(claims, settings.groupsClaim), returnTo: pending.return_to };
  }

  /** Where to send the browser to sign out at the provider too, or null (it offers no way). */
  async logoutUrl(settings: OidcSettings, postLogoutRedirectUri: string): Promise<string | null> {
    let config: client.Configuration;
    try {
      config = await this.configuration(settings);
    } catch {
      return null;
    }
    if (config.serverMetadata().end_session_endpoint === undefined) return null;
    return client.buildEndSessionUrl(config, {
      client_id: settings.clientId,
      post_logout_redirect_uri: postLogoutRedirectUri,
    }).href;
  }

  /** The provider's metadata and the client, discovered once per settings (again after a failure). */
  private configuration(settings: OidcSettings): Promise<client.Configuration> {
    const key = JSON.stringify([
      settings.issuer,
      settings.clientId,
      settings.clientSecret,
      settings.caFile,
    ]);
    if (this.discovered?.key === key) return this.discovered.config;
    const config = discover(settings).catch((error: unknown) => {
      if (this.discovered?.config === config) this.discovered = null;
      throw error instanceof OidcRefused ? error : new OidcUnavailable(describe(error));
    });
    this.discovered = { key, config };
    return config;
  }
}

/** Discovery over HTTPS checked against the system's CAs and `auth.oidc.ca`. */
async function discover(settings: OidcSettings): Promise<client.Configuration> {
  const ca = settings.caFile === null ? null : readFileSync(settings.caFile, 'utf8');
  const { Agent, fetch } = await import('undici');
  const dispatcher = new Agent({
    connect: ca === null ? {} : { ca: [...rootCertificates, ca] },
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const viaAgent: client.CustomFetch = (url, options) =>
    fetch(url, { ...options, dispatcher } as Parameters<
      typeof fetch
    >[1]) as unknown as Promise<Response>;
  const auth =
    settings.clientSecret === null
      ? client.None()
      : client.ClientSecretBasic(settings.clientSecret);
  return client.discovery(new URL(settings.issuer), settings.clientId, undefined, auth, {
    [client.customFetch]: viaAgent,
    timeout: 10,
  });
}

/** A failure to reach the provider is a 503; anything the checks refused is a refusal. */
function classify(error: unknown): Error {
  if (error instanceof OidcRefused || error instanceof OidcUnavailable) return error;
  const code = (error as { code?: unknown }).code;
  if (
    code === 'OAUTH_TIMEOUT' ||
    (error instanceof TypeError && /fetch failed/.test(error.message)) ||
    (error as { name?: string }).name === 'AbortError' ||
    (error as { name?: string }).name === 'TimeoutError'
  )
    return new OidcUnavailable(describe(error));
  return new OidcRefused(describe(error));
}

/**
 * An error's code and message, and its cause's (openid-client wraps oauth4webapi's, which says
 * which claim failed): their messages name claims, never a claim's value, a code or a token.
 */
function describe(error: unknown): string {
  const e = error as { code?: unknown; error?: unknown; message?: unknown; cause?: unknown };
  const parts = [e.code, e.error, e.message];
  if (e.cause instanceof Error) parts.push(e.cause.message);
  const text = parts.filter((p): p is string => typeof p === 'string' && p !== '');
  return text.join(': ').slice(0, 300) || 'unknown error';
}

/** The value at a dotted path (`realm_access.roles`) in the claims, or undefined. */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (path in claims) return claims[path];
  let at: unknown = claims;
  for (const step of path.split('.')) {
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

/** The groups a claim holds: a list of strings, or one string (bounded). */
function groupsOf(claims: Record<string, unknown>, path: string | null): string[] {
  if (path === null) return [];
  const raw = claimAt(claims, path);
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  return list.filter((g): g is string => typeof g === 'string').slice(0, 1000);
}
