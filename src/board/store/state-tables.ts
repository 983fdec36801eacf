/**
 * The state tables, once for each engine's dialect (the only differences: an auto-numbered
 * column and integer widths). Journal ids are the board's own; queue order is the row's `seq`.
 */
function tables(serial: string, int: string): string {
  return `
  CREATE TABLE journal (id ${int} PRIMARY KEY, at TEXT NOT NULL, who TEXT NOT NULL,
    op TEXT NOT NULL, target TEXT NOT NULL, outcome TEXT NOT NULL, status INTEGER,
    detail TEXT NOT NULL);
  CREATE TABLE queue (seq ${serial}, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
    what TEXT NOT NULL, action TEXT NOT NULL, requested_at ${int} NOT NULL,
    delivered INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE identities (name TEXT PRIMARY KEY, location TEXT NOT NULL,
    first_seen ${int} NOT NULL, last_seen ${int}, verified INTEGER NOT NULL DEFAULT 0,
    key_proof_at ${int});
  CREATE TABLE silences (name TEXT PRIMARY KEY, until ${int} NOT NULL, reason TEXT NOT NULL);
  CREATE TABLE deliveries (seq ${serial}, item TEXT NOT NULL);
  CREATE TABLE heartbeat (id INTEGER PRIMARY KEY, at ${int} NOT NULL);
  `;
}

/** Migration 2 (several boards): who wrote an entry, and the boards' heartbeats. */
function boards(int: string): string {
  return `
  ALTER TABLE journal ADD COLUMN board TEXT;
  CREATE TABLE boards (id TEXT PRIMARY KEY, started_at ${int} NOT NULL, seen_at ${int} NOT NULL,
    machines INTEGER NOT NULL DEFAULT 0);
  `;
}

/**
 * Migration 3 (several boards): each machine's record as the board that last observed it
 * published it, with a version from one sequence (a reader keeps one cursor per board: a board
 * publishes one batch at a time, so its own versions commit in order).
 */
const RECORDS_SQLITE = `
  CREATE TABLE records (name TEXT PRIMARY KEY, board TEXT NOT NULL, version INTEGER NOT NULL,
    record TEXT NOT NULL);
  CREATE INDEX records_board_version ON records (board, version);
  `;
const RECORDS_POSTGRES = `
  CREATE SEQUENCE records_version;
  CREATE SEQUENCE journal_ids INCREMENT BY 64;
  SELECT setval('journal_ids', (SELECT coalesce(max(id), 0) + 1 FROM journal), false);
  CREATE INDEX journal_at ON journal (at);
  CREATE TABLE records (name TEXT PRIMARY KEY, board TEXT NOT NULL, version BIGINT NOT NULL,
    record TEXT NOT NULL);
  CREATE INDEX records_board_version ON records (board, version);
  `;

/** Migration 4: what the publishing board took from the overview (so readers do not parse it). */
const RECORDS_META = 'ALTER TABLE records ADD COLUMN meta TEXT;';

/** Migration 5 (several boards): notifications claimed before they are sent. */
const CLAIMS = (int: string) =>
  `CREATE TABLE notify_claims (key TEXT PRIMARY KEY, board TEXT NOT NULL, at ${int} NOT NULL);`;

/** Migration 6: a claim keeps its event until it is delivered (another board sends it if not). */
const CLAIMED_EVENTS =
  'ALTER TABLE notify_claims ADD COLUMN event TEXT; ALTER TABLE notify_claims ADD COLUMN settled INTEGER NOT NULL DEFAULT 0;';

/** Migration 7: machines added from the board, with their keys (or revoked). */
const ENROLLMENTS = (int: string) =>
  `CREATE TABLE enrollments (name TEXT PRIMARY KEY, key TEXT, enrolled_at ${int} NOT NULL,
    revoked_at ${int});`;

/**
 * Migration 8: the attention inbox's acknowledgements, one per machine and session (`bell_at`:
 * the bell acknowledged; a newer one of the session is open again).
 */
const SESSION_ACKS = (int: string) =>
  `CREATE TABLE session_acks (machine TEXT NOT NULL, session TEXT NOT NULL,
    bell_at TEXT NOT NULL, acked_at ${int} NOT NULL, PRIMARY KEY (machine, session));`;
/**
 * Migration 9: Web Push. One VAPID key pair (id 1) for every board of the store, and the
 * browsers' subscriptions (an endpoint once: subscribing again renews its keys).
 */
const PUSH = (int: string) =>
  `CREATE TABLE push_keys (id INTEGER PRIMARY KEY, public_key TEXT NOT NULL,
    private_key TEXT NOT NULL, created_at ${int} NOT NULL);
  CREATE TABLE push_subscriptions (id TEXT PRIMARY KEY, endpoint TEXT NOT NULL UNIQUE,
    p256dh TEXT NOT NULL, auth TEXT NOT NULL, created_at ${int} NOT NULL);`;

/**
 * Migration 10: the key that signs the agent files' SHA256SUMS (Ed25519; id 1), one for every
 * board of the store: agents pin its public half when they enroll.
 */
const SIGNING_KEYS = (int: string) =>
  `CREATE TABLE signing_keys (id INTEGER PRIMARY KEY, public_key TEXT NOT NULL,
    private_key TEXT NOT NULL, created_at ${int} NOT NULL);`;
/** Migration 11: the disk alerts sent and not yet recovered, so a restart does not resend them. */
const SENT_ALERTS =
  'CREATE TABLE sent_alerts (key TEXT PRIMARY KEY, machine TEXT NOT NULL, alert TEXT NOT NULL);';
/** Migration 12: updates from the board not yet seen to finish (one per machine). */
const PENDING_UPDATES = (int: string) =>
  `CREATE TABLE pending_updates (name TEXT PRIMARY KEY, id TEXT NOT NULL,
    asked_at ${int} NOT NULL, queued INTEGER NOT NULL, prior_at TEXT);`;

/** Migration 13: the labels set from the board, by machine name (a JSON object). */
const BOARD_LABELS = 'CREATE TABLE board_labels (name TEXT PRIMARY KEY, labels TEXT NOT NULL);';

/** Migration 14: silences that name a label selector (every machine it selects while it runs). */
const SELECTOR_SILENCES = (int: string) =>
  `CREATE TABLE selector_silences (id TEXT PRIMARY KEY, selector TEXT NOT NULL,
    until ${int} NOT NULL, reason TEXT NOT NULL);`;

/**
 * Migration 15: who did what (the journal's actor, JSON) and the records of people, their
 * sign-in sessions and API tokens (`kind` says which; `body` is JSON; secrets only as digests).
 */
const PEOPLE = (int: string) =>
  `ALTER TABLE journal ADD COLUMN actor TEXT;
  CREATE TABLE auth_records (kind TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL,
    expires_at ${int}, PRIMARY KEY (kind, id));`;

/** The state schema's migrations, per engine, in order. */
export const STATE_TABLES = {
  sqlite: [
    tables('INTEGER PRIMARY KEY AUTOINCREMENT', 'INTEGER'),
    boards('INTEGER'),
    RECORDS_SQLITE,
    RECORDS_META,
    CLAIMS('INTEGER'),
    CLAIMED_EVENTS,
    ENROLLMENTS('INTEGER'),
    SESSION_ACKS('INTEGER'),
    PUSH('INTEGER'),
    SIGNING_KEYS('INTEGER'),
    SENT_ALERTS,
    PENDING_UPDATES('INTEGER'),
    BOARD_LABELS,
    SELECTOR_SILENCES('INTEGER'),
    PEOPLE('INTEGER'),
  ],
  postgres: [
    tables('BIGSERIAL PRIMARY KEY', 'BIGINT'),
    boards('BIGINT'),
    RECORDS_POSTGRES,
    RECORDS_META,
    CLAIMS('BIGINT'),
    CLAIMED_EVENTS,
    ENROLLMENTS('BIGINT'),
    SESSION_ACKS('BIGINT'),
    PUSH('BIGINT'),
    SIGNING_KEYS('BIGINT'),
    SENT_ALERTS,
    PENDING_UPDATES('BIGINT'),
    BOARD_LABELS,
    SELECTOR_SILENCES('BIGINT'),
    PEOPLE('BIGINT'),
  ],
} as const;
