import type pg from 'pg';
import type { SelectorSilenceTable } from '../../notify/selector-silence-table.js';

/** Selector silences, shared by every board on the database. */
export function postgresSelectorSilenceTable(pool: pg.Pool): SelectorSilenceTable {
  return {
    put: async (r) => {
      await pool.query(
        'INSERT INTO selector_silences (id, selector, until, reason) VALUES ($1, $2, $3, $4)',
        [r.id, r.selector, r.until, r.reason],
      );
    },
    remove: async (id) =>
      ((await pool.query('DELETE FROM selector_silences WHERE id = $1', [id])).rowCount ?? 0) > 0,
    load: async () =>
      (
        await pool.query<{ id: string; selector: string; until: string; reason: string }>(
          'SELECT id, selector, until, reason FROM selector_silences ORDER BY id COLLATE "C"',
        )
      ).rows.map((r) => ({ ...r, until: Number(r.until) })),
  };
}
