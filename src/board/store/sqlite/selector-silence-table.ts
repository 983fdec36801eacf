import type Database from 'libsql';
import type {
  SelectorSilenceRecord,
  SelectorSilenceTable,
} from '../../notify/selector-silence-table.js';
import type { GroupCommit } from './group-commit.js';

/** Selector silences in state.db; writes go through the group commit. */
export function sqliteSelectorSilenceTable(
  db: Database.Database,
  commits: GroupCommit,
): SelectorSilenceTable {
  return {
    put: (r) =>
      commits.run((db) => {
        db.prepare(
          'INSERT INTO selector_silences (id, selector, until, reason) VALUES (?, ?, ?, ?)',
        ).run(r.id, r.selector, r.until, r.reason);
      }),
    remove: async (id) => {
      let changed = 0;
      await commits.run((db) => {
        changed = db.prepare('DELETE FROM selector_silences WHERE id = ?').run(id).changes;
      });
      return changed > 0;
    },
    load: async () =>
      db
        .prepare('SELECT id, selector, until, reason FROM selector_silences ORDER BY id')
        .all() as SelectorSilenceRecord[],
  };
}
