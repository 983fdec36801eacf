import type { Clock } from '../../shared/clock.js';
import type { JournalEntry } from '../schemas.js';
import type { BoardEvents } from './events.js';

/** Where journal entries are kept durably. */
export interface JournalStore {
  /** Resolves once the entry is on disk. */
  append(entry: JournalEntry): Promise<void>;
  /** Replaces the stored entries with the ones `snapshot` returns (compaction). */
  rewrite(snapshot: () => readonly JournalEntry[]): Promise<void>;
  readonly lineCount: number;
}

export type JournalInput = Omit<JournalEntry, 'id' | 'at'>;

/**
 * The record of what was done on the board and what it refused. Bounded: the most recent
 * `capacity` entries are kept, in memory and on disk; older ones are compacted away.
 */
export class Journal {
  private readonly entries: JournalEntry[] = [];
  private nextId: number;

  constructor(
    private readonly clock: Clock,
    private readonly events: BoardEvents,
    private readonly store: JournalStore,
    loaded: readonly JournalEntry[],
    private readonly capacity = 10_000,
  ) {
    const byId = new Map<number, JournalEntry>();
    for (const e of loaded) byId.set(e.id, e);
    const sorted = [...byId.values()].sort((a, b) => a.id - b.id);
    this.entries = sorted.slice(-capacity);
    this.nextId = (sorted.at(-1)?.id ?? 0) + 1;
  }

  /** Records an entry; resolves with it once it is on disk (and only then tells listeners). */
  async record(input: JournalInput): Promise<JournalEntry> {
    const entry: JournalEntry = {
      id: this.nextId,
      at: new Date(this.clock.now()).toISOString(),
      ...input,
    };
    this.nextId += 1;
    this.entries.push(entry);
    if (this.entries.length > this.capacity)
      this.entries.splice(0, this.entries.length - this.capacity);
    await this.store.append(entry);
    this.events.journalAppended(entry);
    if (this.store.lineCount > this.capacity * 2) {
      await this.store.rewrite(() => [...this.entries]);
    }
    return entry;
  }

  /** The most recent entries, newest first. */
  recent(limit: number): JournalEntry[] {
    return this.entries.slice(-limit).reverse();
  }
}
