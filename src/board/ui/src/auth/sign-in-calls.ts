/** GET /auth/methods: how one signs in on this board (open; asked before anyone is known). */
export interface Methods {
  /** The identity provider's button (its name), or null when none is configured. */
  oidc: { name: string } | null;
  passkey: boolean;
  password: boolean;
  boardToken: boolean;
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

/** POST /auth/logout: ends the session; the provider's sign-out address when it has one. */
export async function signOutSession(): Promise<string | null> {
  try {
    const r = await fetch('/auth/logout', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { Accept: 'application/json' },
    });
    const body = (await r.json().catch(() => null)) as { logout_url?: unknown } | null;
    const url = body?.logout_url;
    return typeof url === 'string' && /^https?:\/\//.test(url) ? url : null;
  } catch {
    return null;
  }
}
