import type { BindingView } from '../auth/can.js';
import { detailText } from '../auth/me.js';
import { type Api, ApiError } from './client.js';

/** A person as GET /api/people lists them (DESIGN 15; never a secret). */
export interface Person {
  name: string;
  source: string;
  bindings: BindingView[];
  createdAt: number | null;
  signedInAt: number | null;
  passkeys: number;
  password: boolean;
}

/** A one-time sign-up link, shown once. */
export interface SignupLink {
  link: string;
  expiresAt: number | null;
}

/** An API token as GET /api/tokens lists it (never the token itself). */
export interface TokenInfo {
  id: string;
  name: string;
  role: string;
  selector: string | null;
  createdAt: number | null;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null ? (v as Rec) : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** A time the board wrote (ISO text or epoch seconds/ms) as ms, or null. */
function when(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v < 1e12 ? v * 1000 : v;
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}
function bindingsOf(v: unknown): BindingView[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((b: unknown) => {
    const r = rec(b);
    const role = str(r.role);
    return role === null ? [] : [{ role, selector: str(r.selector) }];
  });
}

async function call(api: Api, method: string, path: string, json: unknown, ok: number) {
  const r = await api.send(method, path, json);
  if (r.status !== ok) throw new ApiError(r.status, detailText(r.body, `HTTP ${r.status}`));
  return rec(r.body);
}

const seg = encodeURIComponent;
const linkOf = (b: Rec): SignupLink => ({
  link: str(b.link) ?? '',
  expiresAt: when(b.link_expires_at),
});

/** The People and Tokens routes (DESIGN 15), as the account pages use them. */
export function accountsApi(api: Api) {
  return {
    async people(): Promise<Person[]> {
      const b = await call(api, 'GET', '/api/people', undefined, 200);
      const list = Array.isArray(b.people) ? b.people : [];
      return list.flatMap((p: unknown) => {
        const r = rec(p);
        const name = str(r.name);
        if (name === null) return [];
        return [
          {
            name,
            source: str(r.source) ?? '',
            bindings: bindingsOf(r.bindings),
            createdAt: when(r.created_at),
            signedInAt: when(r.signed_in_at),
            passkeys: typeof r.passkeys === 'number' ? r.passkeys : 0,
            password: r.password === true,
          },
        ];
      });
    },
    async addPerson(name: string, bindings: BindingView[]): Promise<SignupLink> {
      return linkOf(await call(api, 'POST', '/api/people', { name, bindings }, 201));
    },
    async setBindings(name: string, bindings: BindingView[]): Promise<void> {
      await call(api, 'PUT', `/api/people/${seg(name)}`, { bindings }, 200);
    },
    async removePerson(name: string): Promise<void> {
      await call(api, 'DELETE', `/api/people/${seg(name)}`, undefined, 200);
    },
    async newLink(name: string): Promise<SignupLink> {
      return linkOf(await call(api, 'POST', `/api/people/${seg(name)}/link`, undefined, 200));
    },
    async tokens(): Promise<TokenInfo[]> {
      const b = await call(api, 'GET', '/api/tokens', undefined, 200);
      const list = Array.isArray(b.tokens) ? b.tokens : [];
      return list.flatMap((x: unknown) => {
        const r = rec(x);
        const id = str(r.id);
        if (id === null) return [];
        return [
          {
            id,
            name: str(r.name) ?? '',
            role: str(r.role) ?? '',
            selector: str(r.selector),
            createdAt: when(r.created_at),
            expiresAt: when(r.expires_at),
            lastUsedAt: when(r.last_used_at),
          },
        ];
      });
    },
    /** Makes a token; answers the token itself, shown this once. */
    async makeToken(body: {
      name: string;
      role: string;
      selector: string | null;
      expiresInS: number | null;
    }): Promise<string> {
      const json: Rec = { name: body.name, role: body.role };
      if (body.selector !== null) json.selector = body.selector;
      if (body.expiresInS !== null) json.expires_in_s = body.expiresInS;
      const b = await call(api, 'POST', '/api/tokens', json, 201);
      return str(b.token) ?? '';
    },
    async removeToken(id: string): Promise<void> {
      await call(api, 'DELETE', `/api/tokens/${seg(id)}`, undefined, 200);
    },
  };
}

export type AccountsApi = ReturnType<typeof accountsApi>;
