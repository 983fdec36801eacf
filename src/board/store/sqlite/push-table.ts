import type Database from 'libsql';
import type {
  PushKeys,
  PushSubscriptionRecord,
  PushTable,
  SigningKeys,
  SigningKeyTable,
} from '../state.js';
import type { GroupCommit } from './group-commit.js';

/** Web Push's key pair and subscriptions in state.db; writes go through the group commit. */
export function sqlitePushTable(db: Database.Database, commits: GroupCommit): PushTable {
  return {
    keys: (candidate: PushKeys, at: number) =>
      firstKeptPair(db, commits, 'push_keys', candidate, at),
    subscribe: async (r: PushSubscriptionRecord, max: number) => {
      let answer = null as { id: string; added: boolean } | null;
      await commits.run((db) => {
        const known = db
          .prepare('SELECT id FROM push_subscriptions WHERE endpoint = ?')
          .get(r.endpoint) as { id: string } | undefined;
        if (known !== undefined) {
          db.prepare('UPDATE push_subscriptions SET p256dh = ?, auth = ? WHERE id = ?').run(
            r.p256dh,
            r.auth,
            known.id,
          );
          answer = { id: known.id, added: false };
          return;
        }
        const count = db.prepare('SELECT count(*) AS n FROM push_subscriptions').get() as {
          n: number;
        };
        if (count.n >= max) return;
        db.prepare(
          'INSERT INTO push_subscriptions (id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?)',
        ).run(r.id, r.endpoint, r.p256dh, r.auth, r.created_at);
        answer = { id: r.id, added: true };
      });
      return answer;
    },
    unsubscribe: async (id: string) => {
      let changed = 0;
      await commits.run((db) => {
        changed = db.prepare('DELETE FROM push_subscriptions WHERE id = ?').run(id).changes;
      });
      return changed > 0;
    },
    list: async () =>
      db
        .prepare(
          'SELECT id, endpoint, p256dh, auth, created_at FROM push_subscriptions ORDER BY created_at, id',
        )
        .all() as PushSubscriptionRecord[],
  };
}

/** The update-signing key pair in state.db (one row, id 1; the first kept wins). */
export function sqliteSigningTable(db: Database.Database, commits: GroupCommit): SigningKeyTable {
  return {
    key: (candidate: SigningKeys, at: number) =>
      firstKeptPair(db, commits, 'signing_keys', candidate, at),
  };
}

/** Keeps `candidate` in the table's one row (id 1) unless a pair is there; answers the kept one. */
async function firstKeptPair(
  db: Database.Database,
  commits: GroupCommit,
  table: 'push_keys' | 'signing_keys',
  candidate: { publicKey: string; privateKey: string },
  at: number,
): Promise<{ publicKey: string; privateKey: string }> {
  await commits.run((db) => {
    db.prepare(
      `INSERT OR IGNORE INTO ${table} (id, public_key, private_key, created_at) VALUES (1, ?, ?, ?)`,
    ).run(candidate.publicKey, candidate.privateKey, at);
  });
  const row = db.prepare(`SELECT public_key, private_key FROM ${table} WHERE id = 1`).get() as {
    public_key: string;
    private_key: string;
  };
  return { publicKey: row.public_key, privateKey: row.private_key };
}
