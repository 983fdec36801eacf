import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'libsql';
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
import { sqliteAlertsTable } from './alerts-table.js';
import { sqliteAuthTable } from './auth-table.js';
import { GroupCommit } from './group-commit.js';
import { openLibsqlHistory } from './history-store.js';
import { sqliteLabelTable } from './label-table.js';
import { sqlitePushTable, sqliteSigningTable } from './push-table.js';
import { sqliteSelectorSilenceTable } from './selector-silence-table.js';
import { migrateState } from './state-schema.js';
import { sqliteUpdateTable } from './update-table.js';
import { WalSync } from './wal-sync.js';

/** The embedded engine's file for everything but history (history.db stays as it was). */
export const STATE_FILE = 'state.db';

/**
 * The embedded engine: SQLite through libsql in DIR/data/. `state.db` holds the journal, the
 * queue, identities, silences and kept deliveries; history stays in its own `history.db` (its
 * sweeps write in slices with yields: sharing a file would hold the state's writes behind them).
 * Writes of one turn of the event loop commit together (GroupCommit), each commit synced to disk
 * (`synchronous = FULL`, as the append-only files were), so what is acknowledged survives
 * kill -9 and a power cut. Journal entries are the exception: a group of them only is in the
 * WAL file when its promise resolves (it survives kill -9), and synced behind it (WalSync),
 * so an answer that journals does not wait for an fsync (docs/internals/decisions.md).
 */
export class SqliteStore implements BoardStore {
  readonly engine = 'sqlite';
  readonly where: string;
  private readonly commits: GroupCommit;
  private readonly walSync: WalSync;
  private readonly appendJournal: Database.Statement;
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
    private readonly db: Database.Database,
    private readonly dataDir: string,
    onFailure: (error: unknown) => void,
  ) {
    this.where = join(dataDir, STATE_FILE);
    this.walSync = new WalSync(`${this.where}-wal`, onFailure);
    this.commits = new GroupCommit(db, this.walSync);
    this.appendJournal = db.prepare(
      'INSERT OR IGNORE INTO journal (id, at, who, op, target, outcome, status, detail, board, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.push = sqlitePushTable(db, this.commits);
    this.signing = sqliteSigningTable(db, this.commits);
    this.alerts = sqliteAlertsTable(db, this.commits);
    this.updates = sqliteUpdateTable(db, this.commits);
    this.labels = sqliteLabelTable(db, this.commits);
    this.selectorSilences = sqliteSelectorSilenceTable(db, this.commits);
    this.auth = sqliteAuthTable(db, this.commits);
  }

  /**
   * Opens (creating or migrating) DIR/data/state.db; throws naming the file if it cannot.
   * `onFailure` hears of a write that failed behind an answer (the WAL's deferred fsync).
   */
  static open(dataDir: string, onFailure: (error: unknown) => void = () => undefined): SqliteStore {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, STATE_FILE);
    let db: Database.Database;
    try {
      db = new Database(file, { timeout: 0 });
      // It holds the keys of machines added from the board: private, as the config is. SQLite
      // gives its -wal and -shm files the database file's mode.
      chmodSync(file, 0o600);
    } catch (error) {
      throw new Error(`cannot open ${file}: ${message(error)}`);
    }
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      migrateState(db);
    } catch (error) {
      db.close();
      const text = message(error);
      if (/locked|busy/i.test(text))
        throw new Error(`${file} is locked by another process (another board on this data_dir?)`);
      throw new Error(`cannot use ${file}: ${text}`);
    }
    return new SqliteStore(db, dataDir, onFailure);
  }

  /** Writes one journal entry (inside a group's transaction); one already there is kept. */
  private insertJournal(e: JournalEntry): void {
    this.appendJournal.run(
      e.id,
      e.at,
      e.who,
      e.op,
      e.target,
      e.outcome,
      e.status,
      e.detail,
      e.board ?? null,
      actorText(e),
    );
  }

  readonly journal = {
    append: (e: JournalEntry) => this.commits.run(() => this.insertJournal(e), 'record'),
    remove: (ids: readonly number[]) =>
      this.commits.run((db) => {
        const drop = db.prepare('DELETE FROM journal WHERE id = ?');
        for (const id of ids) drop.run(id);
      }, 'record'),
    load: async () =>
      (this.db.prepare('SELECT * FROM journal ORDER BY id').all() as JournalRow[]).map(
        fromJournalRow,
      ),
    recent: async (limit: number, before?: { at: string; id: number }) =>
      (before === undefined
        ? (this.db
            .prepare('SELECT * FROM journal ORDER BY at DESC, id DESC LIMIT ?')
            .all(limit) as JournalRow[])
        : (this.db
            .prepare(
              'SELECT * FROM journal WHERE at < ? OR (at = ? AND id < ?) ORDER BY at DESC, id DESC LIMIT ?',
            )
            .all(before.at, before.at, before.id, limit) as JournalRow[])
      ).map(fromJournalRow),
  };

  readonly queue = {
    add: (a: QueuedAction) =>
      this.commits.run((db) => {
        db.prepare(
          'INSERT INTO queue (id, name, what, action, requested_at, delivered) VALUES (?, ?, ?, ?, ?, ?)',
        ).run(a.id, a.name, a.what, a.action, a.requestedAt, a.delivered ? 1 : 0);
      }),
    markDelivered: async (id: string) => {
      let changed = 0;
      await this.commits.run((db) => {
        changed = db
          .prepare('UPDATE queue SET delivered = 1 WHERE id = ? AND delivered = 0')
          .run(id).changes;
      });
      return changed > 0;
    },
    remove: async (id: string) => {
      let changed = 0;
      await this.commits.run((db) => {
        changed = db.prepare('DELETE FROM queue WHERE id = ?').run(id).changes;
      });
      return changed > 0;
    },
    load: async () =>
      (this.db.prepare('SELECT * FROM queue ORDER BY seq').all() as QueueRow[]).map(fromQueueRow),
  };

  readonly identities = {
    save: (identities: readonly StoredIdentity[]) => {
      const { upsert, remove, commit } = this.identityDiff.against(identities);
      if (upsert.length === 0 && remove.length === 0) return Promise.resolve();
      return this.commits
        .run((db) => {
          const put = db.prepare(
            `INSERT INTO identities (name, location, first_seen, last_seen, verified, key_proof_at)
             VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET location = excluded.location,
             first_seen = excluded.first_seen, last_seen = excluded.last_seen,
             verified = excluded.verified, key_proof_at = excluded.key_proof_at`,
          );
          for (const i of upsert) {
            put.run(
              i.name,
              i.location,
              i.first_seen,
              i.last_seen,
              i.verified ? 1 : 0,
              i.key_proof_at,
            );
          }
          const drop = db.prepare('DELETE FROM identities WHERE name = ?');
          for (const name of remove) drop.run(name);
        })
        .then(commit);
    },
    load: async () => {
      const rows = this.db.prepare('SELECT * FROM identities ORDER BY name').all() as {
        name: string;
        location: string;
        first_seen: number;
        last_seen: number | null;
        verified: number;
        key_proof_at: number | null;
      }[];
      const loaded = rows.map((r) => ({ ...r, verified: r.verified === 1 }));
      this.identityDiff.loaded(loaded);
      return loaded;
    },
  };

  readonly silences = {
    save: (records: readonly SilenceRecord[]) =>
      this.commits.run((db) => {
        db.exec('DELETE FROM silences');
        const put = db.prepare('INSERT INTO silences (name, until, reason) VALUES (?, ?, ?)');
        for (const r of records) put.run(r.name, r.until, r.reason);
      }),
    load: async () =>
      this.db
        .prepare('SELECT name, until, reason FROM silences ORDER BY name')
        .all() as SilenceRecord[],
  };

  readonly enrollments = {
    put: (r: EnrollmentRecord) =>
      this.commits.run((db) => {
        db.prepare(
          `INSERT INTO enrollments (name, key, enrolled_at, revoked_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET key = excluded.key,
           enrolled_at = excluded.enrolled_at, revoked_at = excluded.revoked_at`,
        ).run(r.name, r.key, r.enrolled_at, r.revoked_at);
      }),
    load: async () =>
      this.db
        .prepare('SELECT name, key, enrolled_at, revoked_at FROM enrollments ORDER BY name')
        .all() as EnrollmentRecord[],
  };

  readonly acks = {
    put: (r: AckRecord) =>
      this.commits.run((db) => {
        db.prepare(
          `INSERT INTO session_acks (machine, session, bell_at, acked_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (machine, session) DO UPDATE SET bell_at = excluded.bell_at,
           acked_at = excluded.acked_at WHERE session_acks.bell_at <= excluded.bell_at`,
        ).run(r.machine, r.session, r.bell_at, r.acked_at);
      }),
    remove: (records: readonly AckRecord[]) =>
      this.commits.run((db) => {
        const drop = db.prepare(
          'DELETE FROM session_acks WHERE machine = ? AND session = ? AND bell_at = ?',
        );
        for (const r of records) drop.run(r.machine, r.session, r.bell_at);
      }),
    load: async () =>
      this.db
        .prepare(
          'SELECT machine, session, bell_at, acked_at FROM session_acks ORDER BY machine, session',
        )
        .all() as AckRecord[],
  };

  readonly boards = {
    beat: (b: BoardRow) =>
      this.commits.run((db) => {
        db.prepare(
          `INSERT INTO boards (id, started_at, seen_at, machines) VALUES (?, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at,
           seen_at = excluded.seen_at, machines = excluded.machines`,
        ).run(b.id, b.started_at, b.seen_at, b.machines);
      }),
    list: async () =>
      this.db
        .prepare('SELECT id, started_at, seen_at, machines FROM boards ORDER BY id')
        .all() as BoardRow[],
  };

  /** One board per embedded store: nobody else publishes, and nobody listens. */
  readonly records = {
    publish: (board: string, rows: readonly RecordToPublish[]) =>
      this.commits.run((db) => {
        const top = db.prepare('SELECT coalesce(max(version), 0) AS v FROM records').get() as {
          v: number;
        };
        let version = top.v;
        const put = db.prepare(
          `INSERT INTO records (name, board, version, record, meta) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET board = excluded.board, version = excluded.version,
           record = excluded.record, meta = excluded.meta`,
        );
        for (const r of rows) {
          version += 1;
          put.run(r.name, board, version, r.record, r.meta);
        }
      }),
    since: async (board: string, version: number, limit: number) =>
      this.db
        .prepare(
          'SELECT name, board, version, record, meta FROM records WHERE board = ? AND version > ? ORDER BY version LIMIT ?',
        )
        .all(board, version, limit) as PublishedRecord[],
    listen: async () => async () => undefined,
  };

  /** One board per embedded store: every claim is its own, and no board dies beside it. */
  readonly claims = {
    claim: async (_board: string, items: readonly { key: string; event: string }[]) =>
      items.map((item) => item.key),
    settle: async () => undefined,
    takeOver: async () => [],
  };

  readonly deliveries = {
    keep: (pending: readonly Pending[]) =>
      this.commits.run((db) => {
        const put = db.prepare('INSERT INTO deliveries (item) VALUES (?)');
        for (const p of pending) put.run(JSON.stringify(p));
      }),
    take: async () => {
      const rows = this.db.prepare('SELECT item FROM deliveries ORDER BY seq').all() as {
        item: string;
      }[];
      if (rows.length > 0) await this.commits.run((db) => db.exec('DELETE FROM deliveries'));
      return rows.flatMap((r) => pendingOf(JSON.parse(r.item) as unknown));
    },
  };

  async importAll(data: Imported): Promise<void> {
    await this.commits.run((db) => {
      for (const e of data.journal) this.insertJournal(e);
      const action = db.prepare(
        'INSERT OR IGNORE INTO queue (id, name, what, action, requested_at, delivered) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const a of data.queue)
        action.run(a.id, a.name, a.what, a.action, a.requestedAt, a.delivered ? 1 : 0);
      const identity = db.prepare(
        'INSERT OR IGNORE INTO identities (name, location, first_seen, last_seen, verified, key_proof_at) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const i of data.identities)
        identity.run(
          i.name,
          i.location,
          i.first_seen,
          i.last_seen,
          i.verified ? 1 : 0,
          i.key_proof_at,
        );
      const silence = db.prepare(
        'INSERT OR IGNORE INTO silences (name, until, reason) VALUES (?, ?, ?)',
      );
      for (const s of data.silences) silence.run(s.name, s.until, s.reason);
      const delivery = db.prepare('INSERT INTO deliveries (item) VALUES (?)');
      for (const p of data.deliveries) delivery.run(JSON.stringify(p));
    });
  }

  ping(): Promise<void> {
    return this.commits.run((db) => {
      db.prepare('INSERT OR REPLACE INTO heartbeat (id, at) VALUES (1, ?)').run(Date.now());
    });
  }

  async openHistory(now: () => number): Promise<HistoryStore> {
    this.history ??= openLibsqlHistory(join(this.dataDir, 'history.db'), now);
    return this.history;
  }

  /** Commits what waits, then leaves state.db whole (checkpointed, no WAL to replay). */
  async close(): Promise<void> {
    await this.commits.idle();
    await this.walSync.close();
    await this.history?.close();
    if (!this.db.open) return;
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
      this.db.pragma('journal_mode = DELETE');
    } catch {
      // Another connection still open keeps the (now empty) WAL.
    }
    this.db.close();
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
