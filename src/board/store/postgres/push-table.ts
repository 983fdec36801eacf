import type pg from 'pg';
import type {
  PushKeys,
  PushSubscriptionRecord,
  PushTable,
  SigningKeys,
  SigningKeyTable,
} from '../state.js';
import { inTransaction } from './transaction.js';

/** Web Push's key pair and subscriptions, shared by every board on the database. */
export function postgresPushTable(pool: pg.Pool): PushTable {
  return {
    keys: async (candidate: PushKeys, at: number) => {
      await pool.query(
        `INSERT INTO push_keys (id, public_key, private_key, created_at) VALUES (1, $1, $2, $3)
       ON CONFLICT (id) DO NOTHING`,
        [candidate.publicKey, candidate.privateKey, at],
      );
      const row = (
        await pool.query<{ public_key: string; private_key: string }>(
          'SELECT public_key, private_key FROM push_keys WHERE id = 1',
        )
      ).rows[0];
      if (row === undefined) throw new Error('push_keys: the key pair was not kept');
      return { publicKey: row.public_key, privateKey: row.private_key };
    },
    subscribe: async (r: PushSubscriptionRecord, max: number) => {
      let answer = null as { id: string; added: boolean } | null;
      await inTransaction(pool, async (client) => {
        const known = await client.query<{ id: string }>(
          'UPDATE push_subscriptions SET p256dh = $1, auth = $2 WHERE endpoint = $3 RETURNING id',
          [r.p256dh, r.auth, r.endpoint],
        );
        const id = known.rows[0]?.id;
        if (id !== undefined) {
          answer = { id, added: false };
          return;
        }
        const count = await client.query<{ n: number }>(
          'SELECT count(*)::bigint AS n FROM push_subscriptions',
        );
        if ((count.rows[0]?.n ?? 0) >= max) return;
        // Another board may add the same endpoint meanwhile: then its row (and id) is kept.
        const added = await client.query<{ id: string; added: boolean }>(
          `INSERT INTO push_subscriptions (id, endpoint, p256dh, auth, created_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (endpoint) DO UPDATE SET p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth
         RETURNING id, (xmax = 0) AS added`,
          [r.id, r.endpoint, r.p256dh, r.auth, r.created_at],
        );
        const row = added.rows[0];
        if (row !== undefined) answer = { id: row.id, added: row.added };
      });
      return answer;
    },
    unsubscribe: async (id: string) =>
      ((await pool.query('DELETE FROM push_subscriptions WHERE id = $1', [id])).rowCount ?? 0) > 0,
    list: async () =>
      (
        await pool.query<PushSubscriptionRecord>(
          'SELECT id, endpoint, p256dh, auth, created_at FROM push_subscriptions ORDER BY created_at, id',
        )
      ).rows,
  };
}

/** The update-signing key pair, shared by every board on the database (the first kept wins). */
export function postgresSigningTable(pool: pg.Pool): SigningKeyTable {
  return {
    key: async (candidate: SigningKeys, at: number) => {
      await pool.query(
        `INSERT INTO signing_keys (id, public_key, private_key, created_at) VALUES (1, $1, $2, $3)
       ON CONFLICT (id) DO NOTHING`,
        [candidate.publicKey, candidate.privateKey, at],
      );
      const row = (
        await pool.query<{ public_key: string; private_key: string }>(
          'SELECT public_key, private_key FROM signing_keys WHERE id = 1',
        )
      ).rows[0];
      if (row === undefined) throw new Error('signing_keys: the key pair was not kept');
      return { publicKey: row.public_key, privateKey: row.private_key };
    },
  };
}
