import type { Clock } from '../../shared/clock.js';
import type { AuthTable } from './auth-table.js';
import { newSecret, secretDigest } from './secrets.js';

/** How long a one-time sign-up link is good for (DESIGN 15). */
export const INVITE_MS = 24 * 3600_000;

/** A one-time link as the store keeps it (under the digest of its secret). */
interface InviteBody {
  person: string;
  /** ms since the epoch. */
  created_at: number;
}

/** A link that is still good: whose it is and until when. */
export interface Invite {
  person: string;
  /** ms since the epoch. */
  expiresAt: number;
  /** The digest the link is kept under (what consume takes). */
  id: string;
}

/**
 * One-time sign-up links: the secret goes to the person (in the link's fragment) and only its
 * digest is kept; a person has at most one (a new link replaces the old), used once.
 */
export class InviteBook {
  constructor(
    private readonly table: AuthTable,
    private readonly clock: Clock,
  ) {}

  /** A new link's secret for `person` (any earlier link of theirs stops working). */
  async make(person: string): Promise<{ secret: string; expiresAt: number }> {
    await this.dropOf(person);
    const now = this.clock.now();
    const secret = newSecret();
    const body: InviteBody = { person, created_at: now };
    await this.table.put({
      kind: 'invite',
      id: secretDigest(secret),
      body: JSON.stringify(body),
      expires_at: now + INVITE_MS,
    });
    return { secret, expiresAt: now + INVITE_MS };
  }

  /** The link a secret stands for, or null (unknown, used, replaced or older than 24 h). */
  async find(secret: string): Promise<Invite | null> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(secret)) return null;
    const id = secretDigest(secret);
    const r = await this.table.get('invite', id, this.clock.now());
    if (r === null || r.expires_at === null) return null;
    const body = JSON.parse(r.body) as InviteBody;
    return { person: body.person, expiresAt: r.expires_at, id };
  }

  /** Uses a link up (a credential was set with it); whether it was still there. */
  consume(invite: Invite): Promise<boolean> {
    return this.table.remove('invite', invite.id);
  }

  /** Drops every link of a person (a new one, or the person removed). */
  async dropOf(person: string): Promise<void> {
    for (const r of await this.table.list('invite', this.clock.now())) {
      if ((JSON.parse(r.body) as InviteBody).person === person) {
        await this.table.remove('invite', r.id);
      }
    }
  }
}
