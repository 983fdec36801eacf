import type Database from 'libsql';
import { toLabels } from '../../../shared/labels.js';
import type { BoardLabelTable } from '../../domain/board-label-table.js';
import type { GroupCommit } from './group-commit.js';

/** Board labels in state.db; writes go through the group commit. */
export function sqliteLabelTable(db: Database.Database, commits: GroupCommit): BoardLabelTable {
  return {
    put: (name, labels) =>
      commits.run((db) => {
        if (Object.keys(labels).length === 0)
          db.prepare('DELETE FROM board_labels WHERE name = ?').run(name);
        else
          db.prepare(
            `INSERT INTO board_labels (name, labels) VALUES (?, ?)
             ON CONFLICT (name) DO UPDATE SET labels = excluded.labels`,
          ).run(name, JSON.stringify(labels));
      }),
    load: async () =>
      (
        db.prepare('SELECT name, labels FROM board_labels ORDER BY name').all() as {
          name: string;
          labels: string;
        }[]
      ).map((r) => ({ name: r.name, labels: toLabels(JSON.parse(r.labels)) })),
  };
}
