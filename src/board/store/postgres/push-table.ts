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
    keys: (candidate: PushKeys, at: number) => firstKeptPair(pool, 'push_keys', candidate, at),
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
    key: (candidate: SigningKeys, at: number) => firstKeptPair(pool, 'signing_keys', candidate, at),
  };
}

/** Keeps `candidate` in the table's one row (id 1) unless a pair is there; answers the kept one. */
async function firstKeptPair(
  pool: pg.Pool,
  table: 'push_keys' | 'signing_keys',
  candidate: { publicKey: string; privateKey: string },
  at: number,
): Promise<{ publicKey: string; privateKey: string }> {
  await pool.query(
    `INSERT INTO ${table} (id, public_key, private_key, created_at) VALUES (1, $1, $2, $3)
     ON CONFLICT (id) DO NOTHING`,
    [candidate.publicKey, candidate.privateKey, at],
  );
  const row = (
    await pool.query<{ public_key: string; private_key: string }>(
      `SELECT public_key, private_key FROM ${table} WHERE id = 1`,
    )
  ).rows[0];
  if (row === undefined) throw new Error(`${table}: the key pair was not kept`);
  return { publicKey: row.public_key, privateKey: row.private_key };
}
