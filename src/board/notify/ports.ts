/** What notify needs of the store and of the other boards, as notify names it; store/ and cluster/ implement it. */

import type { NotifyEvent, OutgoingMessage } from './event.js';

/** A message waiting for (or in) delivery. */
export interface Pending {
  channel: string;
  message: OutgoingMessage;
}

/** One machine's silence. */
export interface SilenceRecord {
  name: string;
  /** ms since the epoch. */
  until: number;
  reason: string;
}

/** Where the silences are kept (store/silence-store.ts): read at start, saved in order. */
export interface SilenceKeeper {
  /** The silences read from the store at start. */
  load(): readonly SilenceRecord[];
  /** Resolves once `records()` (read when this write's turn comes) is stored. */
  save(records: () => SilenceRecord[]): Promise<void>;
}

/**
 * One open problem (a failing disk) whose alert the rules sent: kept so that a restart, which
 * sees the problem for the first time again, does not send it again (problem-rules.ts).
 */
export interface SentAlertRecord {
  /** The problem: JSON of [event, machine, subject]. */
  key: string;
  machine: string;
  /** JSON: when the problem began, and what each rule sent of it (its episode). */
  alert: string;
}

/** Where the sent alerts are kept (the store): read at start, written as they change. */
export interface SentAlertsTable {
  /** Inserts or replaces the row of its key. */
  put(record: SentAlertRecord): Promise<void>;
  remove(keys: readonly string[]): Promise<void>;
  /** Every row, by key. */
  load(): Promise<SentAlertRecord[]>;
}

/** Notification deliveries not made at the last stop, handed to the next start once. */
export interface DeliveryTable {
  /** Adds deliveries to be made by the next start. */
  keep(pending: readonly Pending[]): Promise<void>;
  /** The kept deliveries, removed from the store as they are read. */
  take(): Promise<Pending[]>;
}

/**
 * Of several boards sharing a store: each event is claimed before it is sent, so one claimed by
 * another board is not sent twice (cluster/notify-claims.ts).
 */
export interface NotificationClaims {
  /** The events this board is to send, once claimed; null: every event is this board's. */
  claim(channel: string, events: NotifyEvent[]): Promise<NotifyEvent[]> | null;
  /** The message of these events reached its final outcome (delivered, or failed for good). */
  settle(channel: string, events: NotifyEvent[]): void;
}

/** The board's VAPID key pair (RFC 8292), base64url as the web-push library writes it. */
export interface PushKeys {
  /** The uncompressed P-256 point (65 bytes): the application server key browsers are given. */
  publicKey: string;
  /** The private scalar (32 bytes). A secret: never in an answer, a log line or the journal. */
  privateKey: string;
}

/**
 * A browser's push subscription (its PushSubscription JSON). The endpoint is a capability: whoever
 * knows it can send to the browser, so it is a secret like a token, and so are the keys.
 */
export interface PushSubscriptionRecord {
  id: string;
  endpoint: string;
  /** The browser's P-256 public key (base64url, 65 bytes). */
  p256dh: string;
  /** The browser's auth secret (base64url, 16 bytes). */
  auth: string;
  /** ms since the epoch. */
  created_at: number;
}

/** Web Push in the store: one key pair for every board of it, and the subscriptions. */
export interface PushTable {
  /**
   * Keeps `candidate` as the key pair unless one is kept already; answers the kept pair (boards
   * that start together all answer the first one stored).
   */
  keys(candidate: PushKeys, at: number): Promise<PushKeys>;
  /**
   * Adds a subscription, or (same endpoint) renews its keys and keeps its id; answers its id
   * and whether it is new, or null when `max` are kept and this endpoint is not one of them.
   */
  subscribe(
    record: PushSubscriptionRecord,
    max: number,
  ): Promise<{ id: string; added: boolean } | null>;
  /** True if this call removed it (it was there). */
  unsubscribe(id: string): Promise<boolean>;
  /** Every subscription, oldest first. */
  list(): Promise<PushSubscriptionRecord[]>;
}
