/**
 * What the auth records are: people, browser sessions, API tokens, one-time sign-up links, and
 * the WebAuthn challenges a board handed out (any board of the store may finish the ceremony),
 * identity-provider sign-ins under way (`oidc`: state, nonce and PKCE verifier, for 10 minutes).
 */
export type AuthKind = 'person' | 'session' | 'token' | 'invite' | 'challenge' | 'oidc';

/** One record as the store keeps it: `body` is JSON; a secret is only ever kept as a digest. */
export interface AuthRecord {
  kind: AuthKind;
  /** The person's name, or the digest (hex) of a session's or link's secret, or a token's id. */
  id: string;
  body: string;
  /** ms since the epoch after which it is gone, or null. */
  expires_at: number | null;
}

/** The auth records, shared by every board on the store (a session works on each of them). */
export interface AuthTable {
  /** Keeps one, replacing one of the same kind and id. */
  put(record: AuthRecord): Promise<void>;
  /**
   * Writes one again only if it is still there (seen_at, last_used_at): a write racing a
   * sign-out or a deletion must not bring the record back. Whether it was there.
   */
  refresh(record: AuthRecord): Promise<boolean>;
  /** One, or null (also when it expired at `now`). */
  get(kind: AuthKind, id: string, now: number): Promise<AuthRecord | null>;
  /** Drops one; whether it was there. */
  remove(kind: AuthKind, id: string): Promise<boolean>;
  /** Every one of a kind not expired at `now`, by id. */
  list(kind: AuthKind, now: number): Promise<AuthRecord[]>;
  /** Drops what expired by `now`; how many. */
  sweep(now: number): Promise<number>;
}
