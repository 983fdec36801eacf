import type pg from 'pg';
import type { SentAlertRecord, SentAlertsTable } from '../state.js';

/** The sent disk alerts, shared by every board on the database. */
export function postgresAlertsTable(pool: pg.Pool): SentAlertsTable {
  return {
    put: async (r: SentAlertRecord) => {
      await pool.query(
        `INSERT INTO sent_alerts (key, machine, alert) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET machine = excluded.machine, alert = excluded.alert`,
        [r.key, r.machine, r.alert],
      );
    },
    remove: async (keys: readonly string[]) => {
      if (keys.length === 0) return;
      await pool.query('DELETE FROM sent_alerts WHERE key = ANY($1)', [[...keys]]);
    },
    load: async () =>
      (
        await pool.query<SentAlertRecord>(
          'SELECT key, machine, alert FROM sent_alerts ORDER BY key COLLATE "C"',
        )
      ).rows,
  };
}
