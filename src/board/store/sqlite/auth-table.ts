import type Database from 'libsql';
import type { AuthRecord, AuthTable } from '../../auth/auth-table.js';
import type { GroupCommit } from './group-commit.js';

const LIVE = '(expires_at IS NULL OR expires_at > ?)';

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
    get: async (kind, id, now) =>
      (db
        .prepare(
          `SELECT kind, id, body, expires_at FROM auth_records WHERE kind = ? AND id = ? AND ${LIVE}`,
        )
        .get(kind, id, now) as AuthRecord | undefined) ?? null,
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
        .all(kind, now) as AuthRecord[],
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
