import type { Clock } from '../../shared/clock.js';
import { safeText } from '../../shared/wire/free-text.js';
import type { JournalEntry, Who } from '../schemas.js';
import type { BoardEvents } from './events.js';
import { clip } from './outcome.js';

/** Where journal entries are kept durably. */
export interface JournalStore {
  /** Resolves once the entry is durable (or waits, counted, for a store that is away). */
  append(entry: JournalEntry): Promise<void>;
  /** Drops entries the bound pushed out. */
  remove(ids: readonly number[]): Promise<void>;
}

/** Journal ids a board reserves at a time, of several boards sharing a store. */
export const JOURNAL_ID_BLOCK = 64;

/** Entries pushed out of the bound are dropped from the store this many at a time. */
const REMOVE_BATCH = 500;

/** What an entry is made of: `who` names both the specification's word and the actor. */
export type JournalInput = Omit<JournalEntry, 'id' | 'at' | 'who' | 'actor'> & { who: Who };

/** Entries an outsider (a wrong token, a registration-token holder) can cause at will. */
function outsiders(e: JournalEntry): boolean {
  return e.outcome === 'refused' || e.outcome === 'announced';
}

const TARGET_MAX = 200;
const DETAIL_MAX = 1000;

/** What a journal may be given beside its store and the entries it starts from. */
export interface JournalOptions {
  /** How many entries are kept (default 10,000). */
  capacity?: number;
  /** This board's id (board_id): every entry it writes carries it. Absent: none. */
  boardId?: string | null;
  /**
   * Of several boards sharing a store: reserves a block of `JOURNAL_ID_BLOCK` ids for this board
   * (resolving with the first), so no two boards number an entry alike. Absent: ids are local.
   */
  reserve?: (() => Promise<number>) | null;
  /**
   * Of several boards sharing a store: the newest entries of all of them, read from it. Given
   * by the engine, not by how many boards are alive, so a board left alone still serves the
   * entries of the others; it answers null while the store cannot. Absent: this board's
   * entries are the whole journal.
   */
  shared?: ((limit: number, before?: JournalKey) => Promise<JournalEntry[] | null>) | null;
}

/** Where a page of the journal ends (MCP's cursor): the next page holds older entries. */
export interface JournalKey {
  at: string;
  id: number;
}

/**
 * The record of what was done on the board and what it refused. Bounded: the most recent
 * `capacity` entries are kept, in memory and on disk; older ones are compacted away.
 */
export class Journal {
  private readonly entries: JournalEntry[] = [];
  /** How many of the entries are what outsiders caused (see `outsiders`). */
  private refused = 0;
  private nextId: number;
  /** This board's id (board_id): every entry it writes carries it. */
  private readonly boardId: string | null;
  private readonly reserve: (() => Promise<number>) | null;
  private readonly shared: NonNullable<JournalOptions['shared']> | null;
  private readonly capacity: number;
  private block = { next: 0, end: 0 };
  /** Ids pushed out of the bound and not yet dropped from the store. */
  private gone: number[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly events: BoardEvents,
    private readonly store: JournalStore,
    loaded: readonly JournalEntry[],
    options: JournalOptions = {},
  ) {
    this.boardId = options.boardId ?? null;
    this.reserve = options.reserve ?? null;
    this.shared = options.shared ?? null;
    this.capacity = options.capacity ?? 10_000;
    const byId = new Map<number, JournalEntry>();
    for (const e of loaded) byId.set(e.id, e);
    const sorted = [...byId.values()].sort((a, b) => a.id - b.id);
    this.entries = sorted;
    this.refused = sorted.filter(outsiders).length;
    this.nextId = (sorted.at(-1)?.id ?? 0) + 1;
    this.trim();
  }

  /** Records an entry; resolves with it once it is on disk (and only then tells listeners). */
  async record(input: JournalInput): Promise<JournalEntry> {
    const entry: JournalEntry = {
      id: await this.allocate(),
      at: new Date(this.clock.now()).toISOString(),
      who: input.who.word,
      actor: input.who.actor,
      op: input.op,
      outcome: input.outcome,
      status: input.status,
      // The last line of defence: callers already cut what a client supplied to 200.
      target: clip(input.target, TARGET_MAX),
      // A detail may quote a client or a machine's answer: no control or bidi characters.
      detail: safeText(clip(input.detail, DETAIL_MAX)),
      ...(this.boardId === null ? {} : { board: this.boardId }),
    };
    this.entries.push(entry);
    if (outsiders(entry)) this.refused += 1;
    this.trim();
    await this.store.append(entry);
    this.events.journalAppended(entry);
    if (this.gone.length >= REMOVE_BATCH) {
      const ids = this.gone;
      this.gone = [];
      await this.store.remove(ids);
    }
    return entry;
  }

  /** The next id: this board's own count, or the next of the block reserved in the store. */
  private async allocate(): Promise<number> {
    if (this.reserve !== null && this.block.next >= this.block.end) {
      try {
        const first = await this.reserve();
        if (this.block.next >= this.block.end) {
          this.block = { next: first, end: first + JOURNAL_ID_BLOCK };
        }
      } catch {
        // The store is away: numbered here, past every id seen (the store renumbers an entry
        // whose id another board took meanwhile when it is written).
      }
    }
    if (this.block.next < this.block.end) {
      const id = this.block.next;
      this.block.next += 1;
      this.nextId = Math.max(this.nextId, id + 1);
      return id;
    }
    const id = this.nextId;
    this.nextId += 1;
    return id;
  }

  /**
   * Keeps `capacity` entries. Refusals and announcements may fill at most half of them: past
   * that the oldest of those goes, not the oldest entry, so what was done is never pushed out
   * by what outsiders caused (their budgets already limit them to 100 a minute, plus summaries).
   */
  private trim(): void {
    while (this.entries.length > this.capacity) {
      let index = 0;
      if (this.refused > this.capacity / 2) {
        index = this.entries.findIndex(outsiders);
      }
      const [gone] = this.entries.splice(Math.max(0, index), 1);
      if (gone === undefined) continue;
      if (outsiders(gone)) this.refused -= 1;
      this.gone.push(gone.id);
    }
  }

  /** The most recent entries this board holds (older than `before`), newest first. */
  recent(limit: number, before?: JournalKey): JournalEntry[] {
    // This board numbers its own entries in the order it writes them.
    const end =
      before === undefined ? this.entries.length : this.entries.findIndex((e) => e.id >= before.id);
    return this.entries
      .slice(0, end < 0 ? this.entries.length : end)
      .slice(-limit)
      .reverse();
  }

  /**
   * The journal as served (GET /api/journal), newest first (older than `before`, MCP's pages):
   * the shared store's where there is one; while it cannot answer, this board's own entries.
   */
  async served(limit: number, before?: JournalKey): Promise<JournalEntry[]> {
    const entries =
      this.shared === null ? null : await this.shared(limit, before).catch(() => null);
    return entries ?? this.recent(limit, before);
  }
}
