import type { Access } from './access.js';
import { bindingsOfGroups, type OidcSettings } from './auth-config.js';
import type { OidcIdentity } from './oidc.js';
import { PERSON_NAME } from './people.js';
import { type Binding, bindingView } from './roles.js';

/** A person the provider vouched for, let in (a new session's secret) or not (why, to show). */
export type Admission =
  | { ok: true; secret: string; bindings: Binding[] }
  | { ok: false; reason: string };

/**
 * Lets in a person the provider vouched for: their groups mapped to bindings again at every
 * sign-in (no binding: not signed in), the person kept with those bindings, and a NEW session
 * (whatever cookie the browser brought is never adopted: no session fixation).
 */
export async function admitOidc(
  access: Access,
  settings: OidcSettings,
  identity: OidcIdentity,
): Promise<Admission> {
  const { name, groups } = identity;
  if (!PERSON_NAME.test(name))
    return { ok: false, reason: 'The name the identity provider gave cannot be used here.' };
  const bindings = bindingsOfGroups(groups, settings.roles, settings.defaultRole);
  if (bindings.length === 0)
    return {
      ok: false,
      reason: `${name} signed in at the identity provider, but none of their groups gives a role on this board.`,
    };
  const existing = await access.people.get(name);
  // A local person's name is not taken over by whoever the provider calls the same.
  if (existing !== null && existing.source !== 'oidc')
    return {
      ok: false,
      reason: `A person named ${name} who does not sign in with the identity provider is already on this board.`,
    };
  const now = access.clock.now();
  const views = bindings.map(bindingView);
  await access.people.put({
    name,
    source: 'oidc',
    bindings: views,
    created_at: existing?.created_at ?? now,
    signed_in_at: now,
  });
  const secret = await access.sessions.start(name, 'oidc', views);
  return { ok: true, secret, bindings };
}
