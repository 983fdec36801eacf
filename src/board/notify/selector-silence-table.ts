/** A silence naming a label selector, as the store keeps it (the selector as text). */
export interface SelectorSilenceRecord {
  id: string;
  selector: string;
  /** When it ends, ms since the epoch. */
  until: number;
  reason: string;
}

/** The selector silences, shared by every board on the store. */
export interface SelectorSilenceTable {
  /** Keeps one (a new id). */
  put(record: SelectorSilenceRecord): Promise<void>;
  /** Ends one; whether it was there (of several boards ending it, one journals it). */
  remove(id: string): Promise<boolean>;
  /** Every one, by id. */
  load(): Promise<SelectorSilenceRecord[]>;
}
