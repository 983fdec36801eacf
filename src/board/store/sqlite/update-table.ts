import type Database from 'libsql';
import type { PendingUpdateRecord, PendingUpdateTable } from '../state.js';
import type { GroupCommit } from './group-commit.js';

interface Row {
  name: string;
  id: string;
  asked_at: number;
  queued: number;
  prior_at: string | null;
}

/** Pending updates from the board in state.db; writes go through the group commit. */
export function sqliteUpdateTable(db: Database.Database, commits: GroupCommit): PendingUpdateTable {
  const changing = async (sql: string, name: string, id: string): Promise<boolean> => {
    let changed = 0;
    await commits.run((db) => {
      changed = db.prepare(sql).run(name, id).changes;
    });
    return changed > 0;
  };
  return {
    put: (r: PendingUpdateRecord) =>
      commits.run((db) => {
        db.prepare(
          `INSERT INTO pending_updates (name, id, asked_at, queued, prior_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET id = excluded.id, asked_at = excluded.asked_at,
           queued = excluded.queued, prior_at = excluded.prior_at`,
        ).run(r.name, r.id, r.asked_at, r.queued ? 1 : 0, r.prior_at);
      }),
    hand: (name, id) =>
      changing(
        'UPDATE pending_updates SET queued = 0 WHERE name = ? AND id = ? AND queued = 1',
        name,
        id,
      ),
    remove: (name, id) =>
      changing('DELETE FROM pending_updates WHERE name = ? AND id = ?', name, id),
    load: async () =>
      (
        db
          .prepare('SELECT name, id, asked_at, queued, prior_at FROM pending_updates ORDER BY name')
          .all() as Row[]
      ).map((r) => ({ ...r, queued: r.queued === 1 })),
  };
}
