import type pg from 'pg';
import { toLabels } from '../../../shared/labels.js';
import type { BoardLabelTable } from '../../domain/board-label-table.js';

/**
 * Board labels, shared by every board on the database. A change wakes the others at its commit
 * (NOTIFY on `wakeChannel`, which they LISTEN on): they show it then, not at their next read.
 */
export function postgresLabelTable(pool: pg.Pool, wakeChannel: string): BoardLabelTable {
  return {
    put: async (name, labels) => {
      if (Object.keys(labels).length === 0)
        await pool.query(
          `WITH gone AS (DELETE FROM board_labels WHERE name = $1 RETURNING 1)
           SELECT pg_notify('${wakeChannel}', 'labels') FROM gone`,
          [name],
        );
      else
        await pool.query(
          `WITH put AS (INSERT INTO board_labels (name, labels) VALUES ($1, $2)
           ON CONFLICT (name) DO UPDATE SET labels = EXCLUDED.labels RETURNING 1)
           SELECT pg_notify('${wakeChannel}', 'labels') FROM put`,
          [name, JSON.stringify(labels)],
        );
    },
    load: async () =>
      (
        await pool.query<{ name: string; labels: string }>(
          'SELECT name, labels FROM board_labels ORDER BY name COLLATE "C"',
        )
      ).rows.map((r) => ({ name: r.name, labels: toLabels(JSON.parse(r.labels)) })),
  };
}
