/** What notify needs of the store, as notify names it; the engines in store/ implement it. */

import type { Pending } from './delivery-queue.js';

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
