import type { Clock } from '../../shared/clock.js';
import { type Actor, personActor, type Via } from './actor.js';
import type { AuthTable } from './auth-table.js';
import { Recent } from './recent.js';
import { type BindingView, readBindings } from './roles.js';
import { newSecret, secretDigest } from './secrets.js';

/** A browser session as the store keeps it (under the digest of its cookie's secret). */
export interface SessionBody {
  person: string;
  via: Via;
  bindings: BindingView[];
  /** ms since the epoch. */
  created_at: number;
  /** The last request seen with it (written at most once a minute), ms since the epoch. */
  seen_at: number;
}

/** How long a session lives: idle (no request) and absolute (from sign-in). */
export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  idleMs: 2 * 3600_000,
  absoluteMs: 12 * 3600_000,
};

/** seen_at is written when it is older than this (not once per request). */
const TOUCH_MS = 60_000;

/**
 * Browser sessions, server-side in the store so that every board honours them and a sign-out
 * or revocation ends them everywhere (within the lookup cache's 2 s on other boards).
 */
export class SessionBook {
  private readonly recent: Recent<{ actor: Actor; body: SessionBody } | null>;
  private readonly digests = new Map<string, string>();

  constructor(
    private readonly table: AuthTable,
    private readonly clock: Clock,
    private limits: SessionLimits = DEFAULT_SESSION_LIMITS,
  ) {
    this.recent = new Recent(() => clock.now());
  }

  setLimits(limits: SessionLimits): void {
    this.limits = limits;
  }

  /** A new session (always a new secret: a sign-in never adopts one the browser brought). */
  async start(person: string, via: Via, bindings: BindingView[]): Promise<string> {
    const now = this.clock.now();
    const secret = newSecret();
    const body: SessionBody = { person, via, bindings, created_at: now, seen_at: now };
    await this.table.put({
      kind: 'session',
      id: secretDigest(secret),
      body: JSON.stringify(body),
      expires_at: now + this.limits.absoluteMs,
    });
    return secret;
  }

  /**
   * What find() would answer, without waiting, when the lookup is in the 2 s cache; undefined
   * when the store must be asked (every request of a page comes with the cookie: most are here).
   */
  findNow(secret: string): Actor | null | undefined {
    const id = this.digestOf(secret);
    const cached = this.recent.get(id);
    if (cached === undefined) return undefined;
    const now = this.clock.now();
    if (cached === null || !this.alive(cached.body, now)) return null;
    this.touch(id, cached.body, now);
    return cached.actor;
  }

  /** The actor a cookie's secret stands for, or null (unknown, ended, idle or too old). */
  async find(secret: string): Promise<Actor | null> {
    const known = this.findNow(secret);
    if (known !== undefined) return known;
    const id = this.digestOf(secret);
    const now = this.clock.now();
    const record = await this.table.get('session', id, now);
    let found: { actor: Actor; body: SessionBody } | null = null;
    if (record !== null) {
      try {
        const body = JSON.parse(record.body) as SessionBody;
        const actor = personActor(body.person, body.via, readBindings(body.bindings), id);
        found = { actor, body };
      } catch {
        found = null;
      }
    }
    this.recent.set(id, found);
    if (found === null || !this.alive(found.body, now)) return null;
    this.touch(id, found.body, now);
    return found.actor;
  }

  /** A secret's digest, remembered for the secrets seen lately (a hash a request is not cheap). */
  private digestOf(secret: string): string {
    let id = this.digests.get(secret);
    if (id === undefined) {
      if (this.digests.size >= 1000) this.digests.clear();
      id = secretDigest(secret);
      this.digests.set(secret, id);
    }
    return id;
  }

  /** Ends the session a cookie's secret (or a session id) stands for. */
  async end(id: string): Promise<void> {
    this.recent.forget(id);
    await this.table.remove('session', id);
  }

  /** The digest a cookie's secret is kept under (its session id). */
  idOf(secret: string): string {
    return secretDigest(secret);
  }

  /** Ends every session of a person (removed, or their rights changed); how many. */
  async endPerson(person: string): Promise<number> {
    let ended = 0;
    for (const r of await this.table.list('session', this.clock.now())) {
      if ((JSON.parse(r.body) as SessionBody).person !== person) continue;
      await this.end(r.id);
      ended += 1;
    }
    return ended;
  }

  private alive(body: SessionBody, now: number): boolean {
    return (
      now - body.seen_at < this.limits.idleMs && now - body.created_at < this.limits.absoluteMs
    );
  }

  private touch(id: string, body: SessionBody, now: number): void {
    if (now - body.seen_at < TOUCH_MS) return;
    body.seen_at = now;
    this.table
      .refresh({
        kind: 'session',
        id,
        body: JSON.stringify(body),
        expires_at: body.created_at + this.limits.absoluteMs,
      })
      .catch(() => {
        // The store is away: the session is still good; seen_at is written next time.
      });
  }
}
