import {
  type AuthenticationResponseJSON,
  browserSupportsWebAuthn,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';

/** What a sign-in or sign-up answered: signed in as `name` (the cookie is set), or why not. */
export type LocalResult =
  | { ok: true; name: string }
  | { ok: false; status: number; detail: string };

/** POSTs JSON to the board (same origin: the session cookie comes and goes with it). */
async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: response.status, body: parsed };
}

function result(answer: { status: number; body: unknown }): LocalResult {
  const body = (answer.body ?? {}) as { name?: unknown; detail?: unknown };
  if (answer.status === 200 && typeof body.name === 'string') return { ok: true, name: body.name };
  const detail = typeof body.detail === 'string' ? body.detail : `HTTP ${answer.status}`;
  return { ok: false, status: answer.status, detail };
}

/** The browser's WebAuthn refused or was cancelled: a result, not an exception. */
function cancelled(error: unknown): LocalResult {
  return { ok: false, status: 0, detail: error instanceof Error ? error.message : String(error) };
}

/** Whether this page can use passkeys (a secure context with WebAuthn). */
export function passkeysHere(): boolean {
  return browserSupportsWebAuthn();
}

/** Signs in with a name and password (POST /auth/password). */
export async function signInWithPassword(name: string, password: string): Promise<LocalResult> {
  return result(await post('/auth/password', { name, password }));
}

/** Signs in with a passkey the browser offers for this board (discoverable: no name asked). */
export async function signInWithPasskey(): Promise<LocalResult> {
  const options = await post('/auth/passkey/options', {});
  if (options.status !== 200) return result(options);
  let response: AuthenticationResponseJSON;
  try {
    response = await startAuthentication({
      optionsJSON: options.body as PublicKeyCredentialRequestOptionsJSON,
    });
  } catch (error) {
    return cancelled(error);
  }
  return result(await post('/auth/passkey', { response }));
}

/** Whose a one-time link is and until when, or why it is no good. */
export async function readLink(
  link: string,
): Promise<{ ok: true; name: string; expiresAt: string } | { ok: false; detail: string }> {
  const answer = await post('/auth/signup', { link });
  const body = (answer.body ?? {}) as { name?: unknown; expires_at?: unknown; detail?: unknown };
  if (answer.status === 200 && typeof body.name === 'string' && typeof body.expires_at === 'string')
    return { ok: true, name: body.name, expiresAt: body.expires_at };
  return { ok: false, detail: typeof body.detail === 'string' ? body.detail : '' };
}

/** Sets a password with a one-time link. */
export async function signUpWithPassword(link: string, password: string): Promise<LocalResult> {
  return result(await post('/auth/signup/password', { link, password }));
}

/** Registers a passkey with a one-time link. */
export async function signUpWithPasskey(link: string): Promise<LocalResult> {
  const options = await post('/auth/signup/passkey/options', { link });
  if (options.status !== 200) return result(options);
  let response: unknown;
  try {
    response = await startRegistration({
      optionsJSON: options.body as PublicKeyCredentialCreationOptionsJSON,
    });
  } catch (error) {
    return cancelled(error);
  }
  return result(await post('/auth/signup/passkey', { link, response }));
}
