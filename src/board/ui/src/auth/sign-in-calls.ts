import { startAuthentication } from '@simplewebauthn/browser';
import { detailText } from './me.js';

/** GET /auth/methods: how one signs in on this board (open; asked before anyone is known). */
export interface Methods {
  /** The identity provider's button (its name), or null when none is configured. */
  oidc: { name: string } | null;
  passkey: boolean;
  password: boolean;
  boardToken: boolean;
}

/** What a sign-in attempt came to. `wait`: too many failures from here (429). */
export type Attempt = { ok: true } | { ok: false; wait: boolean; detail: string };

async function post(path: string, json?: unknown): Promise<{ status: number; body: unknown }> {
  const r = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      Accept: 'application/json',
      ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: r.status, body: (await r.json().catch(() => null)) as unknown };
}

function attempt(r: { status: number; body: unknown }): Attempt {
  if (r.status === 200) return { ok: true };
  return { ok: false, wait: r.status === 429, detail: detailText(r.body, `HTTP ${r.status}`) };
}

/** The methods; a board too old to say offers the board token only. */
export async function signInMethods(): Promise<Methods> {
  const only: Methods = { oidc: null, passkey: false, password: false, boardToken: true };
  try {
    const r = await fetch('/auth/methods', { headers: { Accept: 'application/json' } });
    if (r.status !== 200) return only;
    const b = (await r.json()) as Record<string, unknown>;
    const oidc = b.oidc as { name?: unknown } | null | undefined;
    return {
      oidc: oidc !== null && typeof oidc?.name === 'string' ? { name: oidc.name } : null,
      passkey: b.passkey === true,
      password: b.password === true,
      boardToken: b.board_token !== false,
    };
  } catch {
    return only;
  }
}

/** Where the identity provider's button goes: back to this very page afterwards. */
export function providerHref(): string {
  const back = window.location.pathname + window.location.search;
  return `/auth/oidc/login?return=${encodeURIComponent(back)}`;
}

/** POST /auth/password: a session cookie on success. */
export async function signInWithPassword(name: string, password: string): Promise<Attempt> {
  return attempt(await post('/auth/password', { name, password }));
}

/** The passkey ceremony: the board's options, the browser's authenticator, the board's check. */
export async function signInWithPasskey(): Promise<Attempt> {
  const options = await post('/auth/passkey/options');
  if (options.status !== 200) return attempt(options);
  const response = await startAuthentication({
    optionsJSON: options.body as Parameters<typeof startAuthentication>[0]['optionsJSON'],
  });
  return attempt(await post('/auth/passkey', { response }));
}

/** POST /auth/logout: ends the session; the provider's sign-out address when it has one. */
export async function signOutSession(): Promise<string | null> {
  try {
    const r = await post('/auth/logout');
    const url = (r.body as { logout_url?: unknown } | null)?.logout_url;
    return typeof url === 'string' && /^https?:\/\//.test(url) ? url : null;
  } catch {
    return null;
  }
}
