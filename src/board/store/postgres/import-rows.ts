import type pg from 'pg';
import { actorText } from '../rows.js';
import type { Imported, StoredIdentity } from '../state.js';

/** The journal's columns, in the order every insert and select names them. */
export const JOURNAL_COLUMNS = 'id, at, who, op, target, outcome, status, detail, board, actor';

/** Writes what an import carries (inside the caller's transaction); rows already there are kept. */
export async function importRows(client: pg.PoolClient, data: Imported): Promise<void> {
  const j = data.journal;
  await client.query(
    `INSERT INTO journal (${JOURNAL_COLUMNS}) SELECT * FROM unnest($1::bigint[], $2::text[],
     $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::text[], $10::text[])
     ON CONFLICT DO NOTHING`,
    [
      j.map((e) => e.id),
      j.map((e) => e.at),
      j.map((e) => e.who),
      j.map((e) => e.op),
      j.map((e) => e.target),
      j.map((e) => e.outcome),
      j.map((e) => e.status),
      j.map((e) => e.detail),
      j.map((e) => e.board ?? null),
      j.map(actorText),
    ],
  );
  const q = data.queue;
  await client.query(
    `INSERT INTO queue (id, name, what, action, requested_at, delivered) SELECT * FROM
     unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::int[])
     ON CONFLICT DO NOTHING`,
    [
      q.map((a) => a.id),
      q.map((a) => a.name),
      q.map((a) => a.what),
      q.map((a) => a.action),
      q.map((a) => a.requestedAt),
      q.map((a) => (a.delivered ? 1 : 0)),
    ],
  );
  await upsertIdentities(client, data.identities, 'keep');
  const s = data.silences;
  await client.query(
    `INSERT INTO silences (name, until, reason) SELECT * FROM unnest($1::text[], $2::bigint[],
     $3::text[]) ON CONFLICT DO NOTHING`,
    [s.map((r) => r.name), s.map((r) => r.until), s.map((r) => r.reason)],
  );
  await client.query('INSERT INTO deliveries (item) SELECT unnest($1::text[])', [
    data.deliveries.map((p) => JSON.stringify(p)),
  ]);
  // Blocks reserved from here on start past every imported id.
  await client.query(
    `SELECT setval('journal_ids', greatest((SELECT last_value + 64 FROM journal_ids),
     (SELECT coalesce(max(id), 0) + 1 FROM journal)), false)`,
  );
}

/** Identities as one statement; a name already there is updated or kept. */
export async function upsertIdentities(
  client: pg.PoolClient,
  rows: readonly StoredIdentity[],
  onConflict: 'update' | 'keep',
): Promise<void> {
  const conflict =
    onConflict === 'keep'
      ? 'DO NOTHING'
      : `DO UPDATE SET location = EXCLUDED.location, first_seen = EXCLUDED.first_seen,
         last_seen = EXCLUDED.last_seen, verified = EXCLUDED.verified,
         key_proof_at = EXCLUDED.key_proof_at`;
  await client.query(
    `INSERT INTO identities (name, location, first_seen, last_seen, verified, key_proof_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::int[], $6::bigint[])
     ON CONFLICT (name) ${conflict}`,
    [
      rows.map((i) => i.name),
      rows.map((i) => i.location),
      rows.map((i) => i.first_seen),
      rows.map((i) => i.last_seen),
      rows.map((i) => (i.verified ? 1 : 0)),
      rows.map((i) => i.key_proof_at),
    ],
  );
}
