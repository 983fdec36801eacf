import type { Clock } from '../../shared/clock.js';
import { type Actor, tokenActor } from './actor.js';
import type { AuthTable } from './auth-table.js';
import { Recent } from './recent.js';
import { type Binding, type BindingView, bindingView, readBindings } from './roles.js';
import { newSecret, publicId, secretDigest } from './secrets.js';

/** The prefix of an API token (so a leaked one is recognisable, and never taken for another). */
export const TOKEN_PREFIX = 'pnp_';

/** An API token as the store keeps it (under the SHA-256 of the token; the token is not kept). */
export interface TokenBody {
  /** The public id (GET /api/tokens, DELETE /api/tokens/{id}). */
  id: string;
  name: string;
  bindings: BindingView[];
  /** The person who made it, or null: made with the board token. */
  maker: string | null;
  /** ms since the epoch. */
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

/** last_used_at is written when it is older than this (not once per request). */
const TOUCH_MS = 60_000;

/** API tokens for scripts and MCP, shared by every board on the store. */
export class TokenBook {
  private readonly recent: Recent<{ body: TokenBody; actor: Actor } | null>;

  constructor(
    private readonly table: AuthTable,
    private readonly clock: Clock,
    /** Whether the maker still holds what the token holds (a removed person: no). */
    private readonly makerCovers: (maker: string, bindings: readonly Binding[]) => Promise<boolean>,
  ) {
    this.recent = new Recent(() => clock.now());
  }

  /** Makes one; the token is in the answer only (the store keeps its digest). */
  async create(
    name: string,
    bindings: readonly Binding[],
    maker: string | null,
    expiresInS: number | null,
  ): Promise<{ body: TokenBody; token: string }> {
    const now = this.clock.now();
    const token = newSecret(TOKEN_PREFIX);
    const body: TokenBody = {
      id: publicId(),
      name,
      bindings: bindings.map(bindingView),
      maker,
      created_at: now,
      expires_at: expiresInS === null ? null : now + expiresInS * 1000,
      last_used_at: null,
    };
    await this.table.put({
      kind: 'token',
      id: secretDigest(token),
      body: JSON.stringify(body),
      expires_at: body.expires_at,
    });
    return { body, token };
  }

  /** Every token not expired, with the digest it is kept under. */
  async list(): Promise<{ digest: string; body: TokenBody }[]> {
    return (await this.table.list('token', this.clock.now())).map((r) => ({
      digest: r.id,
      body: JSON.parse(r.body) as TokenBody,
    }));
  }

  /** One by its public id (not expired), or null. */
  async get(id: string): Promise<TokenBody | null> {
    return (await this.list()).find((t) => t.body.id === id)?.body ?? null;
  }

  /** Drops one by its public id; what it was, or null. */
  async remove(id: string): Promise<TokenBody | null> {
    for (const t of await this.list()) {
      if (t.body.id !== id) continue;
      this.recent.forget(t.digest);
      return (await this.table.remove('token', t.digest)) ? t.body : null;
    }
    return null;
  }

  /** Drops every token a person made (the person is removed); how many. */
  async removeMadeBy(person: string): Promise<number> {
    let gone = 0;
    for (const t of await this.list()) {
      if (t.body.maker !== person) continue;
      this.recent.forget(t.digest);
      if (await this.table.remove('token', t.digest)) gone += 1;
    }
    return gone;
  }

  /** The actor an API token stands for, or null (unknown, expired, or its maker lost the rights). */
  async find(token: string): Promise<Actor | null> {
    if (!token.startsWith(TOKEN_PREFIX)) return null;
    const digest = secretDigest(token);
    const now = this.clock.now();
    let found = this.recent.get(digest);
    if (found === undefined) {
      found = await this.lookUp(digest, now);
      this.recent.set(digest, found);
    }
    if (found === null) return null;
    const { body, actor } = found;
    if (body.expires_at !== null && body.expires_at <= now) return null;
    this.touch(digest, body, now);
    return actor;
  }

  private async lookUp(
    digest: string,
    now: number,
  ): Promise<{ body: TokenBody; actor: Actor } | null> {
    const record = await this.table.get('token', digest, now);
    if (record === null) return null;
    const body = JSON.parse(record.body) as TokenBody;
    const bindings = readBindings(body.bindings);
    if (body.maker !== null && !(await this.makerCovers(body.maker, bindings))) return null;
    return { body, actor: tokenActor(body.name, body.id, bindings) };
  }

  private touch(digest: string, body: TokenBody, now: number): void {
    if (body.last_used_at !== null && now - body.last_used_at < TOUCH_MS) return;
    body.last_used_at = now;
    this.table
      .refresh({
        kind: 'token',
        id: digest,
        body: JSON.stringify(body),
        expires_at: body.expires_at,
      })
      .catch(() => {
        // The store is away: last_used_at is written next time.
      });
  }
}
