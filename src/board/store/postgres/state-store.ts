import type pg from 'pg';
import type { AuthTable } from '../../auth/auth-table.js';
import type { QueuedAction } from '../../domain/action-queue.js';
import type { HistoryStore } from '../../history/history-store.js';
import type { Pending } from '../../notify/ports.js';
import type { SelectorSilenceTable } from '../../notify/selector-silence-table.js';
import type { JournalEntry } from '../../schemas.js';
import { IdentityDiff } from '../identity-diff.js';
import {
  actorText,
  fromJournalRow,
  fromQueueRow,
  type JournalRow,
  pendingOf,
  type QueueRow,
} from '../rows.js';
import type {
  AckRecord,
  BoardLabelTable,
  BoardRow,
  BoardStore,
  EnrollmentRecord,
  Imported,
  PendingUpdateTable,
  PublishedRecord,
  PushTable,
  RecordToPublish,
  SentAlertsTable,
  SigningKeyTable,
  SilenceRecord,
  StoredIdentity,
} from '../state.js';
import { STATE_TABLES } from '../state-tables.js';
import { postgresAlertsTable } from './alerts-table.js';
import { postgresAuthTable } from './auth-table.js';
import { describePostgres, openPool, type PostgresSettings } from './connection.js';
import { openPostgresHistory } from './history-store.js';
import { importRows, JOURNAL_COLUMNS, upsertIdentities } from './import-rows.js';
import { postgresLabelTable } from './label-table.js';
import { listen } from './listen.js';
import { migrate } from './migrate.js';
import { postgresPushTable, postgresSigningTable } from './push-table.js';
import { postgresSelectorSilenceTable } from './selector-silence-table.js';
import { inTransaction } from './transaction.js';
import { postgresUpdateTable } from './update-table.js';

/** The state schema's migrations on PostgreSQL: append, never edit one that shipped. */
export const STATE_MIGRATIONS: readonly string[] = STATE_TABLES.postgres;

/** Wakes the other boards (records published, an action queued); named for what it first carried. */
const WAKE_CHANNEL = 'panoptes_records';

/**
 * The PostgreSQL engine: the same tables as the embedded one, reached through a pool (`pg`).
 * Multi-row writes go as one statement with array parameters (`unnest`), not a row each.
 */
export class PostgresStore implements BoardStore {
  readonly engine = 'postgres';
  readonly where: string;
  private history: HistoryStore | null = null;
  private readonly identityDiff = new IdentityDiff();
  readonly push: PushTable;
  readonly signing: SigningKeyTable;
  readonly alerts: SentAlertsTable;
  readonly updates: PendingUpdateTable;
  readonly labels: BoardLabelTable;
  readonly selectorSilences: SelectorSilenceTable;
  readonly auth: AuthTable;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly settings: PostgresSettings,
  ) {
    this.where = describePostgres(settings.url);
    this.push = postgresPushTable(pool);
    this.signing = postgresSigningTable(pool);
    this.alerts = postgresAlertsTable(pool);
    this.updates = postgresUpdateTable(pool);
    this.labels = postgresLabelTable(pool, WAKE_CHANNEL);
    this.selectorSilences = postgresSelectorSilenceTable(pool);
    this.auth = postgresAuthTable(pool);
  }

  /** Connects and migrates (under an advisory lock: boards that start at once do not race). */
  static async open(
    settings: PostgresSettings,
    onIdleError: (error: Error) => void,
  ): Promise<PostgresStore> {
    const pool = openPool(settings, onIdleError);
    try {
      await migrate(pool, 'state', STATE_MIGRATIONS);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return new PostgresStore(pool, settings);
  }

  /** The pool, for the parts of the board that speak to the same database (the cluster). */
  get connections(): pg.Pool {
    return this.pool;
  }

  readonly journal = {
    append: async (e: JournalEntry) => {
      const insert = (id: number) =>
        this.pool.query(
          `INSERT INTO journal (${JOURNAL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           ON CONFLICT (id) DO NOTHING`,
          [
            id,
            e.at,
            e.who,
            e.op,
            e.target,
            e.outcome,
            e.status,
            e.detail,
            e.board ?? null,
            actorText(e),
          ],
        );
      if (((await insert(e.id)).rowCount ?? 0) > 0) return;
      // The id is taken: the same entry written before (a retry), or, for an id a board numbered
      // itself while the store was away, another board's entry: then it is kept under a new id.
      const same = await this.pool.query(
        'SELECT 1 FROM journal WHERE id = $1 AND at = $2 AND detail = $3 AND board IS NOT DISTINCT FROM $4',
        [e.id, e.at, e.detail, e.board ?? null],
      );
      if ((same.rowCount ?? 0) > 0) return;
      await insert(await this.journal.reserve());
    },
    reserve: async () =>
      Number(
        (await this.pool.query<{ v: string }>("SELECT nextval('journal_ids') AS v")).rows[0]?.v,
      ),
    recent: async (limit: number, before?: { at: string; id: number }) =>
      (before === undefined
        ? await this.pool.query<JournalRow>(
            `SELECT ${JOURNAL_COLUMNS} FROM journal ORDER BY at DESC, id DESC LIMIT $1`,
            [limit],
          )
        : await this.pool.query<JournalRow>(
            `SELECT ${JOURNAL_COLUMNS} FROM journal WHERE at < $2 OR (at = $2 AND id < $3)
             ORDER BY at DESC, id DESC LIMIT $1`,
            [limit, before.at, before.id],
          )
      ).rows.map(fromJournalRow),
    remove: async (ids: readonly number[]) => {
      await this.pool.query('DELETE FROM journal WHERE id = ANY($1::bigint[])', [ids]);
    },
    load: async () =>
      (
        await this.pool.query<JournalRow>(`SELECT ${JOURNAL_COLUMNS} FROM journal ORDER BY id`)
      ).rows.map(fromJournalRow),
  };

  readonly queue = {
    add: async (a: QueuedAction) => {
      // The others are woken at the commit (they read the row then), not at their next read.
      await this.pool.query(
        `WITH added AS (INSERT INTO queue (id, name, what, action, requested_at, delivered)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id)
         SELECT pg_notify('${WAKE_CHANNEL}', 'queue') FROM added`,
        [a.id, a.name, a.what, a.action, a.requestedAt, a.delivered ? 1 : 0],
      );
    },
    markDelivered: async (id: string) =>
      ((
        await this.pool.query('UPDATE queue SET delivered = 1 WHERE id = $1 AND delivered = 0', [
          id,
        ])
      ).rowCount ?? 0) > 0,
    remove: async (id: string) =>
      ((await this.pool.query('DELETE FROM queue WHERE id = $1', [id])).rowCount ?? 0) > 0,
    load: async () =>
      (
        await this.pool.query<QueueRow>(
          'SELECT id, name, what, action, requested_at, delivered FROM queue ORDER BY seq',
        )
      ).rows.map(fromQueueRow),
  };

  readonly identities = {
    save: async (identities: readonly StoredIdentity[]) => {
      const { upsert, remove, commit } = this.identityDiff.against(identities);
      if (upsert.length === 0 && remove.length === 0) return;
      await inTransaction(this.pool, async (client) => {
        if (upsert.length > 0) await upsertIdentities(client, upsert, 'update');
        if (remove.length > 0)
          await client.query('DELETE FROM identities WHERE name = ANY($1::text[])', [remove]);
      });
      commit();
    },
    load: async () => {
      const rows = (
        await this.pool.query<Omit<StoredIdentity, 'verified'> & { verified: number }>(
          'SELECT name, location, first_seen, last_seen, verified, key_proof_at FROM identities ORDER BY name',
        )
      ).rows;
      const loaded = rows.map((r) => ({ ...r, verified: r.verified === 1 }));
      this.identityDiff.loaded(loaded);
      return loaded;
    },
  };

  readonly silences = {
    save: async (records: readonly SilenceRecord[]) => {
      await inTransaction(this.pool, async (client) => {
        await client.query('DELETE FROM silences');
        await client.query(
          'INSERT INTO silences (name, until, reason) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])',
          [records.map((r) => r.name), records.map((r) => r.until), records.map((r) => r.reason)],
        );
      });
    },
    load: async () =>
      (
        await this.pool.query<SilenceRecord>(
          'SELECT name, until, reason FROM silences ORDER BY name',
        )
      ).rows,
  };

  readonly enrollments = {
    put: async (r: EnrollmentRecord) => {
      await this.pool.query(
        `INSERT INTO enrollments (name, key, enrolled_at, revoked_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET key = EXCLUDED.key,
         enrolled_at = EXCLUDED.enrolled_at, revoked_at = EXCLUDED.revoked_at`,
        [r.name, r.key, r.enrolled_at, r.revoked_at],
      );
    },
    load: async () =>
      (
        await this.pool.query<EnrollmentRecord>(
          'SELECT name, key, enrolled_at, revoked_at FROM enrollments ORDER BY name',
        )
      ).rows,
  };

  readonly acks = {
    put: async (r: AckRecord) => {
      // The others are woken at the commit (they read the acks then), not at their next read.
      await this.pool.query(
        `WITH put AS (INSERT INTO session_acks (machine, session, bell_at, acked_at)
         VALUES ($1, $2, $3, $4) ON CONFLICT (machine, session) DO UPDATE
         SET bell_at = EXCLUDED.bell_at, acked_at = EXCLUDED.acked_at
         WHERE session_acks.bell_at COLLATE "C" <= EXCLUDED.bell_at RETURNING 1)
         SELECT pg_notify('${WAKE_CHANNEL}', 'acks') FROM put`,
        [r.machine, r.session, r.bell_at, r.acked_at],
      );
    },
    remove: async (records: readonly AckRecord[]) => {
      if (records.length === 0) return;
      await this.pool.query(
        `DELETE FROM session_acks a USING json_to_recordset($1::json)
         AS r(machine text, session text, bell_at text)
         WHERE a.machine = r.machine AND a.session = r.session AND a.bell_at = r.bell_at`,
        [
          JSON.stringify(
            records.map((r) => ({ machine: r.machine, session: r.session, bell_at: r.bell_at })),
          ),
        ],
      );
    },
    load: async () =>
      (
        await this.pool.query<AckRecord>(
          `SELECT machine, session, bell_at, acked_at FROM session_acks
           ORDER BY machine COLLATE "C", session COLLATE "C"`,
        )
      ).rows,
  };

  readonly boards = {
    beat: async (b: BoardRow) => {
      await this.pool.query(
        `INSERT INTO boards (id, started_at, seen_at, machines) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET started_at = EXCLUDED.started_at,
         seen_at = EXCLUDED.seen_at, machines = EXCLUDED.machines`,
        [b.id, b.started_at, b.seen_at, b.machines],
      );
    },
    list: async () =>
      (
        await this.pool.query<BoardRow>(
          'SELECT id, started_at, seen_at, machines FROM boards ORDER BY id',
        )
      ).rows,
  };

  readonly records = {
    publish: async (board: string, rows: readonly RecordToPublish[]) => {
      if (rows.length === 0) return;
      await inTransaction(this.pool, async (client) => {
        await client.query(
          // One JSON parameter, not text arrays: node-postgres escapes every quote of a record
          // into an array literal in JavaScript (measured: the largest cost of a publish).
          `INSERT INTO records (name, board, version, record, meta)
           SELECT name, $1, nextval('records_version'), record, meta
           FROM json_to_recordset($2::json) AS r(name text, record text, meta text)
           ON CONFLICT (name) DO UPDATE SET board = EXCLUDED.board, version = EXCLUDED.version,
           record = EXCLUDED.record, meta = EXCLUDED.meta`,
          [board, JSON.stringify(rows)],
        );
        // Sent at COMMIT: the others read what is committed.
        await client.query(`SELECT pg_notify('${WAKE_CHANNEL}', $1)`, [board]);
      });
    },
    since: async (board: string, version: number, limit: number) =>
      (
        await this.pool.query<PublishedRecord>(
          `SELECT name, board, version, record, meta FROM records WHERE board = $1 AND version > $2
           ORDER BY version LIMIT $3`,
          [board, version, limit],
        )
      ).rows,
    listen: (wake: () => void) => listen(this.settings, WAKE_CHANNEL, wake),
  };

  readonly claims = {
    claim: async (
      board: string,
      items: readonly { key: string; event: string }[],
      at: number,
      windowMs: number,
    ) =>
      (
        await this.pool.query<{ key: string }>(
          `INSERT INTO notify_claims (key, board, at, event, settled)
           SELECT key, $2, $3, event, 0 FROM json_to_recordset($1::json) AS c(key text, event text)
           ON CONFLICT (key) DO UPDATE SET board = EXCLUDED.board, at = EXCLUDED.at,
           event = EXCLUDED.event, settled = 0
           WHERE notify_claims.at < $3 - $4 RETURNING key`,
          [JSON.stringify(items), board, at, windowMs],
        )
      ).rows.map((r) => r.key),
    settle: async (keys: readonly string[]) => {
      await this.pool.query('UPDATE notify_claims SET settled = 1 WHERE key = ANY($1::text[])', [
        keys,
      ]);
    },
    takeOver: async (board: string, dead: readonly string[], since: number, at: number) =>
      (
        await this.pool.query<{ key: string; event: string }>(
          `UPDATE notify_claims SET board = $1, at = $4 WHERE settled = 0 AND at >= $3
           AND board = ANY($2::text[]) AND event IS NOT NULL RETURNING key, event`,
          [board, dead, since, at],
        )
      ).rows,
  };

  readonly deliveries = {
    keep: async (pending: readonly Pending[]) => {
      await this.pool.query('INSERT INTO deliveries (item) SELECT unnest($1::text[])', [
        pending.map((p) => JSON.stringify(p)),
      ]);
    },
    take: async () => {
      const rows = (
        await this.pool.query<{ item: string }>(
          'WITH taken AS (DELETE FROM deliveries RETURNING seq, item) SELECT item FROM taken ORDER BY seq',
        )
      ).rows;
      return rows.flatMap((r) => pendingOf(JSON.parse(r.item) as unknown));
    },
  };

  async importAll(data: Imported): Promise<void> {
    await inTransaction(this.pool, (client) => importRows(client, data));
  }

  async ping(): Promise<void> {
    await this.pool.query(
      'INSERT INTO heartbeat (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at',
      [Date.now()],
    );
  }

  async openHistory(now: () => number): Promise<HistoryStore> {
    this.history ??= await openPostgresHistory(this.pool, now);
    return this.history;
  }

  async close(): Promise<void> {
    await this.history?.close();
    await this.pool.end();
  }
}
