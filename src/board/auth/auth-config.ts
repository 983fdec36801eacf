import type { ConfigProblem } from '../../shared/config/config-error.js';
import { proxyEntryProblem } from '../../shared/http/client-address.js';
import { FilePath } from '../../shared/tls/pem-files.js';
import { type Static, Type } from '../../shared/typebox.js';
import { HttpUrl } from '../../shared/wire/common.js';
import { type Binding, ROLES, readBindings } from './roles.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from './sessions.js';

const Role = Type.Union(ROLES.map((r) => Type.Literal(r)));

/** A group a provider or a proxy names, and the binding it gives. */
const RoleMappingConfig = Type.Object(
  {
    group: Type.String({ minLength: 1, maxLength: 256 }),
    role: Role,
    selector: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { additionalProperties: false },
);

/** `auth:` in board.yaml (DESIGN 15). */
export const AuthConfig = Type.Object(
  {
    sessions: Type.Optional(
      Type.Object(
        {
          idle: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
          absolute: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    oidc: Type.Optional(
      Type.Object(
        {
          issuer: HttpUrl,
          client_id: Type.String({ minLength: 1, maxLength: 512 }),
          client_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
          scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 50 })),
          username_claim: Type.Optional(Type.String({ minLength: 1 })),
          groups_claim: Type.Optional(Type.String({ minLength: 1 })),
          roles: Type.Optional(Type.Array(RoleMappingConfig, { maxItems: 1000 })),
          default_role: Type.Optional(Type.Union([Type.Literal('none'), Role])),
          /** A CA the provider's certificate is checked against (beside the system's). */
          ca: Type.Optional(FilePath),
          /** The button's text on the sign-in page. */
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        },
        { additionalProperties: false },
      ),
    ),
    trusted_header: Type.Optional(
      Type.Object(
        {
          user: Type.String({ minLength: 1, maxLength: 128 }),
          groups: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
          proxies: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 1000 }),
          roles: Type.Optional(Type.Array(RoleMappingConfig, { maxItems: 1000 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type AuthConfig = Static<typeof AuthConfig>;

/** A group's binding, parsed once. */
export interface RoleMapping {
  group: string;
  binding: Binding;
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
  scopes: string[];
  usernameClaim: string;
  /** A dotted path into the ID token's (or userinfo's) claims, or null: no groups. */
  groupsClaim: string | null;
  roles: RoleMapping[];
  /** The binding of a person no group maps (null: `none`, not signed in). */
  defaultRole: Binding | null;
  caFile: string | null;
  name: string;
}

export interface TrustedHeaderSettings {
  user: string;
  groups: string | null;
  proxies: string[];
  roles: RoleMapping[];
}

export interface AuthSettings {
  sessions: SessionLimits;
  oidc: OidcSettings | null;
  trustedHeader: TrustedHeaderSettings | null;
}

export const NO_AUTH: AuthSettings = {
  sessions: DEFAULT_SESSION_LIMITS,
  oidc: null,
  trustedHeader: null,
};

/** `auth:` checked, selectors parsed once; problems name their field. */
export function authSettings(
  raw: AuthConfig | undefined,
  problems: ConfigProblem[],
  resolvePath: (file: string) => string,
): AuthSettings {
  if (raw === undefined) return NO_AUTH;
  const sessions: SessionLimits = {
    idleMs: (raw.sessions?.idle ?? DEFAULT_SESSION_LIMITS.idleMs / 1000) * 1000,
    absoluteMs: (raw.sessions?.absolute ?? DEFAULT_SESSION_LIMITS.absoluteMs / 1000) * 1000,
  };
  const o = raw.oidc;
  const oidc: OidcSettings | null =
    o === undefined
      ? null
      : {
          issuer: o.issuer,
          clientId: o.client_id,
          clientSecret: o.client_secret ?? null,
          scopes: o.scopes ?? ['openid', 'profile'],
          usernameClaim: o.username_claim ?? 'preferred_username',
          groupsClaim: o.groups_claim ?? null,
          roles: mappings(o.roles, 'auth.oidc.roles', problems),
          defaultRole:
            o.default_role === undefined || o.default_role === 'none'
              ? null
              : { role: o.default_role, selector: null },
          caFile: o.ca === undefined ? null : resolvePath(o.ca),
          name: o.name ?? 'Sign in with your identity provider',
        };
  if (oidc !== null && !oidc.scopes.includes('openid'))
    problems.push({ field: 'auth.oidc.scopes', problem: 'must include openid' });
  const t = raw.trusted_header;
  const trustedHeader: TrustedHeaderSettings | null =
    t === undefined
      ? null
      : {
          user: t.user.toLowerCase(),
          groups: t.groups?.toLowerCase() ?? null,
          proxies: t.proxies,
          roles: mappings(t.roles, 'auth.trusted_header.roles', problems),
        };
  for (const [i, entry] of (t?.proxies ?? []).entries()) {
    const problem = proxyEntryProblem(entry);
    if (problem !== null) problems.push({ field: `auth.trusted_header.proxies[${i}]`, problem });
  }
  return { sessions, oidc, trustedHeader };
}

function mappings(
  raw: readonly { group: string; role: string; selector?: string }[] | undefined,
  field: string,
  problems: ConfigProblem[],
): RoleMapping[] {
  const out: RoleMapping[] = [];
  for (const [i, m] of (raw ?? []).entries()) {
    try {
      const [binding] = readBindings([
        { role: m.role as Binding['role'], selector: m.selector ?? null },
      ]);
      if (binding !== undefined) out.push({ group: m.group, binding });
    } catch (error) {
      problems.push({ field: `${field}[${i}].selector`, problem: (error as Error).message });
    }
  }
  return out;
}

/** The bindings a person's groups give (the default role's when none maps; maybe none). */
export function bindingsOfGroups(
  groups: readonly string[],
  roles: readonly RoleMapping[],
  defaultRole: Binding | null,
): Binding[] {
  const given = roles.filter((r) => groups.includes(r.group)).map((r) => r.binding);
  if (given.length > 0) return given;
  return defaultRole === null ? [] : [defaultRole];
}
