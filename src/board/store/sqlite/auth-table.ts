import type Database from 'libsql';
import type { AuthRecord, AuthTable } from '../../auth/auth-table.js';
import type { GroupCommit } from './group-commit.js';

const LIVE = '(expires_at IS NULL OR expires_at > ?)';

const fromRow = (r: AuthRecord): AuthRecord => ({
  kind: r.kind,
  id: r.id,
  body: r.body,
  expires_at: r.expires_at,
});

/** The auth records in state.db; writes go through the group commit. */
export function sqliteAuthTable(db: Database.Database, commits: GroupCommit): AuthTable {
  return {
    put: (r) =>
      commits.run((db) => {
        db.prepare(
          `INSERT INTO auth_records (kind, id, body, expires_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at`,
        ).run(r.kind, r.id, r.body, r.expires_at);
      }),
    refresh: async (r) => {
      let changed = 0;
      await commits.run((db) => {
        changed = db
          .prepare('UPDATE auth_records SET body = ?, expires_at = ? WHERE kind = ? AND id = ?')
          .run(r.body, r.expires_at, r.kind, r.id).changes;
      });
      return changed > 0;
    },
    get: async (kind, id, now) => {
      const row = db
        .prepare(
          `SELECT kind, id, body, expires_at FROM auth_records WHERE kind = ? AND id = ? AND ${LIVE}`,
        )
        .get(kind, id, now) as AuthRecord | undefined;
      // Only the columns (libsql adds a `_metadata` member to a row read with get()).
      return row === undefined ? null : fromRow(row);
    },
    remove: async (kind, id) => {
      let changed = 0;
      await commits.run((db) => {
        changed = db
          .prepare('DELETE FROM auth_records WHERE kind = ? AND id = ?')
          .run(kind, id).changes;
      });
      return changed > 0;
    },
    list: async (kind, now) =>
      db
        .prepare(
          `SELECT kind, id, body, expires_at FROM auth_records WHERE kind = ? AND ${LIVE} ORDER BY id`,
        )
        .all(kind, now)
        .map((r) => fromRow(r as AuthRecord)),
    sweep: async (now) => {
      let changed = 0;
      await commits.run((db) => {
        changed = db
          .prepare('DELETE FROM auth_records WHERE expires_at IS NOT NULL AND expires_at <= ?')
          .run(now).changes;
      });
      return changed;
    },
  };
}
