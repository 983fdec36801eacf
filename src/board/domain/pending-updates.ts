/**
 * An update from the board asked for a machine, until a board sees it finish: kept in the store
 * so that a restart does not forget it and any board of a cluster hands it over.
 */
export interface PendingUpdateRecord {
  name: string;
  /** The update's id, as the journal names it. */
  id: string;
  /** ms since the epoch. */
  asked_at: number;
  /** Waits for the machine's next report (announced) until one board hands it over. */
  queued: boolean;
  /** The `at` of the outcome the machine said when it was asked (an older one is not this one's). */
  prior_at: string | null;
}

/** Pending updates, one per machine. Of several boards, one is told it handed or settled one. */
export interface PendingUpdateTable {
  /** Inserts or replaces the row of its name. */
  put(record: PendingUpdateRecord): Promise<void>;
  /** Clears `queued` of the row of this name and id; true if this call cleared it. */
  hand(name: string, id: string): Promise<boolean>;
  /** Drops the row of this name and id; true if this call dropped it. */
  remove(name: string, id: string): Promise<boolean>;
  /** Every row, by name. */
  load(): Promise<PendingUpdateRecord[]>;
}
