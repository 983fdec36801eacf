import type pg from 'pg';
import type { AuthKind, AuthRecord, AuthTable } from '../../auth/auth-table.js';

const LIVE = '(expires_at IS NULL OR expires_at > $2)';

interface Row {
  kind: AuthKind;
  id: string;
  body: string;
  expires_at: string | null;
}

const fromRow = (r: Row): AuthRecord => ({
  ...r,
  expires_at: r.expires_at === null ? null : Number(r.expires_at),
});

/** The auth records, shared by every board on the database. */
export function postgresAuthTable(pool: pg.Pool): AuthTable {
  return {
    put: async (r) => {
      await pool.query(
        `INSERT INTO auth_records (kind, id, body, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at`,
        [r.kind, r.id, r.body, r.expires_at],
      );
    },
    refresh: async (r) =>
      ((
        await pool.query(
          'UPDATE auth_records SET body = $1, expires_at = $2 WHERE kind = $3 AND id = $4',
          [r.body, r.expires_at, r.kind, r.id],
        )
      ).rowCount ?? 0) > 0,
    get: async (kind, id, now) => {
      const rows = (
        await pool.query<Row>(
          `SELECT kind, id, body, expires_at FROM auth_records WHERE kind = $1 AND ${LIVE} AND id = $3`,
          [kind, now, id],
        )
      ).rows;
      return rows[0] === undefined ? null : fromRow(rows[0]);
    },
    remove: async (kind, id) =>
      ((await pool.query('DELETE FROM auth_records WHERE kind = $1 AND id = $2', [kind, id]))
        .rowCount ?? 0) > 0,
    list: async (kind, now) =>
      (
        await pool.query<Row>(
          `SELECT kind, id, body, expires_at FROM auth_records WHERE kind = $1 AND ${LIVE}
           ORDER BY id COLLATE "C"`,
          [kind, now],
        )
      ).rows.map(fromRow),
    sweep: async (now) =>
      (
        await pool.query(
          'DELETE FROM auth_records WHERE expires_at IS NOT NULL AND expires_at <= $1',
          [now],
        )
      ).rowCount ?? 0,
  };
}
