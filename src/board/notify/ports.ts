/** What notify needs of the store and of the other boards, as notify names it; store/ and cluster/ implement it. */

import type { Pending } from './delivery-queue.js';
import type { NotifyEvent } from './event.js';

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
