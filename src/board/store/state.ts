import type { AuthTable } from '../auth/auth-table.js';
import type { QueuedAction } from '../domain/action-queue.js';
import type { BoardLabelTable } from '../domain/board-label-table.js';
import type { AckRecord } from '../domain/inbox.js';
import type { PendingUpdateTable } from '../domain/pending-updates.js';
import type { HistoryStore } from '../history/history-store.js';
import type {
  DeliveryTable,
  Pending,
  PushTable,
  SentAlertsTable,
  SilenceRecord,
} from '../notify/ports.js';
import type { SelectorSilenceTable } from '../notify/selector-silence-table.js';
import type { JournalEntry } from '../schemas.js';

export type { BoardLabelRecord, BoardLabelTable } from '../domain/board-label-table.js';
export type { AckRecord } from '../domain/inbox.js';
export type { PendingUpdateRecord, PendingUpdateTable } from '../domain/pending-updates.js';
export type {
  PushKeys,
  PushSubscriptionRecord,
  PushTable,
  SentAlertRecord,
  SentAlertsTable,
  SilenceRecord,
} from '../notify/ports.js';

/**
 * The board's durable state behind small interfaces, one per concern. Two engines implement
 * them: embedded SQLite (`sqlite/`, the default) and PostgreSQL (`postgres/`); the domain does
 * not know which one it talks to, and `state-contract.case.ts` is the test both pass.
 * Every write resolves once it is durable (committed), and rejects if it is not.
 */

/** An announced machine as kept across restarts (never its overview). */
export interface StoredIdentity {
  name: string;
  location: string;
  /** ms since the epoch. */
  first_seen: number;
  last_seen: number | null;
  /** Whether its last report proved the key the board holds for it. */
  verified: boolean;
  /** ms since the epoch of the last accepted timed key proof (replays are refused), or null. */
  key_proof_at: number | null;
}

/**
 * A machine added from the board (POST /api/machines/{name}/enroll): the key the board made for
 * it, kept beside board.yaml's announced_keys. Revoking keeps the row without its key, so that
 * reports under the name are refused until it is enrolled again.
 */
export interface EnrollmentRecord {
  name: string;
  /** The key, or null once revoked. A secret: never in an answer but the enroll answer. */
  key: string | null;
  /** ms since the epoch. */
  enrolled_at: number;
  /** ms since the epoch, or null while enrolled. */
  revoked_at: number | null;
}

/** The journal: entries appended one by one, dropped by id when compacted. */
export interface JournalTable {
  append(entry: JournalEntry): Promise<void>;
  /** Drops entries (the journal is bounded; see Journal.trim). */
  remove(ids: readonly number[]): Promise<void>;
  /** Every entry, oldest first. */
  load(): Promise<JournalEntry[]>;
  /**
   * The newest `limit` entries of every board sharing the store, newest first (by `at`, then
   * id); with `before`, only those that come after it in that order (older).
   */
  recent(limit: number, before?: { at: string; id: number }): Promise<JournalEntry[]>;
  /**
   * The first of JOURNAL_ID_BLOCK (domain/journal.ts) ids reserved for this board, where several boards may share
   * the store (PostgreSQL); absent where one board numbers its own entries.
   */
  reserve?: () => Promise<number>;
}

/** Actions queued for announced machines the board cannot reach. */
export interface QueueTable {
  /** Adds an action; where boards share the store, wakes the others (RecordsTable.listen). */
  add(action: QueuedAction): Promise<void>;
  /** True if this call set the flag (it was not set). */
  markDelivered(id: string): Promise<boolean>;
  /** True if this call removed the action (it was there). */
  remove(id: string): Promise<boolean>;
  /** Every queued action, oldest first. */
  load(): Promise<QueuedAction[]>;
}

/** Announced identities; `save` makes the stored set equal to the one given. */
export interface IdentityTable {
  save(identities: readonly StoredIdentity[]): Promise<void>;
  load(): Promise<StoredIdentity[]>;
}

/** Silences; `save` makes the stored set equal to the one given. */
export interface SilenceTable {
  save(records: readonly SilenceRecord[]): Promise<void>;
  load(): Promise<SilenceRecord[]>;
}

/** Enrolled machines; `put` inserts or replaces the row of one name. */
export interface EnrollmentTable {
  put(record: EnrollmentRecord): Promise<void>;
  /** Every row, by name. */
  load(): Promise<EnrollmentRecord[]>;
}

/**
 * Acknowledged sessions of the attention inbox, one row per machine and session. Where boards
 * share the store, `put` wakes the others (RecordsTable.listen), so they read it at once.
 */
export interface AckTable {
  /**
   * Inserts or replaces the row of its machine and session, unless the row there is of a newer
   * bell (`bell_at`).
   */
  put(record: AckRecord): Promise<void>;
  /** Drops rows by machine and session, each only while its `bell_at` is the one given. */
  remove(records: readonly AckRecord[]): Promise<void>;
  /** Every row, by machine, then session. */
  load(): Promise<AckRecord[]>;
}

/** The board's update-signing key pair (Ed25519), base64url as in a JWK (`x` and `d`). */
export interface SigningKeys {
  /** The raw public key (32 bytes): what the enroll pins in an agent's config as update_key. */
  publicKey: string;
  /** The private seed (32 bytes). A secret: never in an answer, a log line or the journal. */
  privateKey: string;
}

/** The signing key in the store: made once, shared by every board of it. */
export interface SigningKeyTable {
  /**
   * Keeps `candidate` unless a pair is kept already; answers the kept pair (boards that start
   * together all answer the first one stored).
   */
  key(candidate: SigningKeys, at: number): Promise<SigningKeys>;
}

/** One board's heartbeat row (several boards may share a PostgreSQL store). */
export interface BoardRow {
  /** Its board_id. */
  id: string;
  /** ms since the epoch. */
  started_at: number;
  /** ms since the epoch of its last heartbeat. */
  seen_at: number;
  /** How many configured machines it polls. */
  machines: number;
}

/** The boards that use this store: each writes its own row every second. */
export interface BoardsTable {
  beat(row: BoardRow): Promise<void>;
  /** Every board that has ever written a row, by id. */
  list(): Promise<BoardRow[]>;
}

/** A machine's record as one board published it. */
export interface PublishedRecord {
  name: string;
  board: string;
  /** From one sequence: a board's later publish has a higher version. */
  version: number;
  /** The record as GET /api/board lists it (JSON text, overview included). */
  record: string;
  /** What the publisher took from the overview (JSON: metrics and sessions), or null. */
  meta: string | null;
}

/** One record to publish. */
export interface RecordToPublish {
  name: string;
  record: string;
  meta: string;
}

/** The machines' records that boards sharing a store publish for each other. */
export interface RecordsTable {
  /** Upserts the records (one statement) and wakes the other boards. */
  publish(board: string, records: readonly RecordToPublish[]): Promise<void>;
  /** What `board` published after `version`, oldest first (at most `limit`). */
  since(board: string, version: number, limit: number): Promise<PublishedRecord[]>;
  /**
   * Calls `wake` when another board has published records or queued an action (PostgreSQL's
   * LISTEN); returns a stop.
   */
  listen(wake: () => void): Promise<() => Promise<void>>;
}

/** Notifications claimed before they are sent, so that of several boards one sends each. */
export interface ClaimsTable {
  /**
   * Claims `items` (a key and the event as JSON) for `board` at `at` (ms); answers the keys it
   * got: those nobody claimed since `at - windowMs`.
   */
  claim(
    board: string,
    items: readonly { key: string; event: string }[],
    at: number,
    windowMs: number,
  ): Promise<string[]>;
  /**
   * Notes that these claims' messages were delivered, or failed for good (nothing to note where
   * one board has the store: none dies beside it to take them over).
   */
  settle(keys: readonly string[]): Promise<void>;
  /**
   * Takes over the unsettled claims of boards that are dead (claimed since `since`), for
   * `board`; answers their keys and events (each taken by one board only).
   */
  takeOver(
    board: string,
    dead: readonly string[],
    since: number,
    at: number,
  ): Promise<{ key: string; event: string }[]>;
}

/** Everything an import of an older data directory brings, written in one transaction. */
export interface Imported {
  journal: JournalEntry[];
  queue: QueuedAction[];
  identities: StoredIdentity[];
  silences: SilenceRecord[];
  deliveries: Pending[];
}

/** One engine: the tables, its history store, and its life cycle. */
export interface BoardStore {
  /** `sqlite` or `postgres`: for logs and /metrics only; the domain never branches on it. */
  readonly engine: 'sqlite' | 'postgres';
  /** Where it is, for log lines: a path, or host:port/database (never a password). */
  readonly where: string;
  readonly journal: JournalTable;
  readonly queue: QueueTable;
  readonly identities: IdentityTable;
  readonly silences: SilenceTable;
  readonly enrollments: EnrollmentTable;
  readonly acks: AckTable;
  /** Updates from the board not yet seen to finish. */
  readonly updates: PendingUpdateTable;
  /** The labels set from the board, by machine name. */
  readonly labels: BoardLabelTable;
  /** Silences naming a label selector. */
  readonly selectorSilences: SelectorSilenceTable;
  /** People, their sessions and API tokens, one-time sign-up links. */
  readonly auth: AuthTable;
  readonly deliveries: DeliveryTable;
  readonly boards: BoardsTable;
  readonly records: RecordsTable;
  readonly claims: ClaimsTable;
  /** Web Push: the VAPID key pair and the browsers' subscriptions (shared by the boards). */
  readonly push: PushTable;
  /** The key that signs the served agent files' SHA256SUMS (shared by the boards). */
  readonly signing: SigningKeyTable;
  /** The disk alerts sent and not yet recovered (a restart does not send them again). */
  readonly alerts: SentAlertsTable;
  /** Writes what an older data directory held, all or nothing; ids already present are kept. */
  importAll(data: Imported): Promise<void>;
  /** A small write that proves the store works (the reconnect probe, and a heartbeat). */
  ping(): Promise<void>;
  /** The history store on this engine (opened once; null when history is off). */
  openHistory(now: () => number): Promise<HistoryStore>;
  /** Waits for writes under way, then releases every connection (SQLite checkpoints). */
  close(): Promise<void>;
}
