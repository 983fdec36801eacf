import type { JournalEntry } from '../api/types.js';

/** How many journal entries the page keeps (the panel shows the newest that match). */
export const JOURNAL_KEEP = 1000;

/** Recent journal entries, newest first; live entries are batched per frame like the board. */
export interface JournalStore {
  readonly version: number;
  readonly entries: readonly JournalEntry[];
  subscribe(listener: () => void): () => void;
  /** Merges a fetched journal with what arrived live meanwhile. */
  replace(entries: readonly JournalEntry[]): void;
  add(entry: JournalEntry): void;
}

/** Newest first: by time, then by id (the board numbers its entries in order). */
const newestFirst = (a: JournalEntry, b: JournalEntry): number => {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  const x = Number(a.id);
  const y = Number(b.id);
  return Number.isNaN(x) || Number.isNaN(y) ? 0 : y - x;
};

export function createJournalStore(schedule: (fn: () => void) => void): JournalStore {
  let entries: readonly JournalEntry[] = [];
  let version = 0;
  let pending: JournalEntry[] = [];
  let scheduled = false;
  const listeners = new Set<() => void>();

  const merge = (incoming: readonly JournalEntry[], base: readonly JournalEntry[]) => {
    const seen = new Set<string>();
    const out: JournalEntry[] = [];
    for (const e of [...incoming, ...base]) {
      if (seen.has(e.id)) continue;
      seen.add(e.id);
      out.push(e);
    }
    return out.sort(newestFirst).slice(0, JOURNAL_KEEP);
  };

  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    entries = merge(pending, entries);
    pending = [];
    version += 1;
    for (const l of listeners) l();
  };

  return {
    get version() {
      return version;
    },
    get entries() {
      return entries;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    replace(fetched) {
      entries = merge([...pending, ...fetched], []);
      pending = [];
      version += 1;
      for (const l of listeners) l();
    },
    add(entry) {
      pending.push(entry);
      // Bounded even while frames do not run (a hidden tab).
      if (pending.length > JOURNAL_KEEP) pending = pending.slice(-JOURNAL_KEEP);
      if (scheduled) return;
      scheduled = true;
      schedule(flush);
    },
  };
}
