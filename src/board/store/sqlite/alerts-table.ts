import type Database from 'libsql';
import type { SentAlertRecord, SentAlertsTable } from '../state.js';
import type { GroupCommit } from './group-commit.js';

/** The sent disk alerts in state.db; writes go through the group commit. */
export function sqliteAlertsTable(db: Database.Database, commits: GroupCommit): SentAlertsTable {
  return {
    put: (r: SentAlertRecord) =>
      commits.run((db) => {
        db.prepare(
          `INSERT INTO sent_alerts (key, machine, alert) VALUES (?, ?, ?)
           ON CONFLICT (key) DO UPDATE SET machine = excluded.machine, alert = excluded.alert`,
        ).run(r.key, r.machine, r.alert);
      }),
    remove: (keys: readonly string[]) =>
      commits.run((db) => {
        const drop = db.prepare('DELETE FROM sent_alerts WHERE key = ?');
        for (const key of keys) drop.run(key);
      }),
    load: async () =>
      db
        .prepare('SELECT key, machine, alert FROM sent_alerts ORDER BY key')
        .all() as SentAlertRecord[],
  };
}
