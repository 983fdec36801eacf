import type pg from 'pg';

/** Runs `work` on one pooled connection between BEGIN and COMMIT; rolls back if it throws. */
export async function inTransaction(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
