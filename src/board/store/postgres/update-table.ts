import type pg from 'pg';
import type { PendingUpdateRecord, PendingUpdateTable } from '../state.js';

/** Pending updates from the board, shared by every board on the database. */
export function postgresUpdateTable(pool: pg.Pool): PendingUpdateTable {
  return {
    put: async (r: PendingUpdateRecord) => {
      await pool.query(
        `INSERT INTO pending_updates (name, id, asked_at, queued, prior_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (name) DO UPDATE SET id = EXCLUDED.id, asked_at = EXCLUDED.asked_at,
         queued = EXCLUDED.queued, prior_at = EXCLUDED.prior_at`,
        [r.name, r.id, r.asked_at, r.queued ? 1 : 0, r.prior_at],
      );
    },
    hand: async (name, id) =>
      ((
        await pool.query(
          'UPDATE pending_updates SET queued = 0 WHERE name = $1 AND id = $2 AND queued = 1',
          [name, id],
        )
      ).rowCount ?? 0) > 0,
    remove: async (name, id) =>
      ((await pool.query('DELETE FROM pending_updates WHERE name = $1 AND id = $2', [name, id]))
        .rowCount ?? 0) > 0,
    load: async () =>
      (
        await pool.query<{
          name: string;
          id: string;
          asked_at: number;
          queued: number;
          prior_at: string | null;
        }>(
          'SELECT name, id, asked_at, queued, prior_at FROM pending_updates ORDER BY name COLLATE "C"',
        )
      ).rows.map((r) => ({ ...r, queued: r.queued === 1 })),
  };
}
