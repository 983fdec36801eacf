import type { IncomingHttpHeaders } from 'node:http';
import { type Actor, personActor } from './actor.js';
import { bindingsOfGroups, type TrustedHeaderSettings } from './auth-config.js';
import { PERSON_NAME } from './people.js';

/**
 * The person an authenticating proxy (oauth2-proxy, Authelia) vouches for, or null: no user,
 * or no groups header (no groups: no role; nothing is assumed when a header is missing).
 */
export function headerActor(
  settings: TrustedHeaderSettings,
  headers: IncomingHttpHeaders,
): Actor | null {
  const user = headers[settings.user];
  if (typeof user !== 'string' || !PERSON_NAME.test(user)) return null;
  if (settings.groups === null) return null;
  const raw = headers[settings.groups];
  if (typeof raw !== 'string') return null;
  const groups = raw
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
  const bindings = bindingsOfGroups(groups, settings.roles, null);
  if (bindings.length === 0) return null;
  return personActor(user, 'header', bindings, null);
}
