import type { Labels } from '../../shared/labels.js';
import type { AuthKind, AuthRecord } from '../auth/auth-table.js';
import type { QueuedAction } from '../domain/action-queue.js';
import { isStoreUnavailable } from '../domain/store-unavailable.js';
import type { SelectorSilenceRecord } from '../notify/selector-silence-table.js';
import type { JournalEntry } from '../schemas.js';
import type {
  AckRecord,
  BoardLabelRecord,
  BoardRow,
  BoardStore,
  EnrollmentRecord,
  PendingUpdateRecord,
  PushKeys,
  PushSubscriptionRecord,
  SigningKeys,
  SilenceRecord,
  StoredIdentity,
} from './state.js';
import type { StoreHealth } from './store-health.js';

/** Journal entries that wait for the store while it is away, at most. */
export const JOURNAL_BUFFER_MAX = 10_000;

/**
 * The engine's tables as the domain uses them, every write through the store's health: what
 * must be durable before it is acknowledged (a queued action, a silence, forgetting a machine)
 * is refused with 503 while the store cannot write; what is only a record (journal entries, the
 * removal of a handed-over action, the delivered flag) waits in a bounded buffer and is written
 * when the store is back, in order. `recover` is the health's probe: it writes what waits, then
 * proves the store with a small write of its own.
 */
export class GuardedTables {
  /** Journal entries not yet written, oldest first. */
  private journalWaiting: JournalEntry[] = [];
  /** Journal entries dropped from a full buffer since the store was last back (counted). */
  journalDropped = 0;
  private journalRemovals: number[] = [];
  private queueRemovals = new Set<string>();
  private delivered = new Set<string>();

  constructor(
    private readonly store: BoardStore,
    private readonly health: StoreHealth,
  ) {
    health.setProbe(() => this.recover());
  }

  /** Entries waiting for the store (for /metrics). */
  get journalBuffered(): number {
    return this.journalWaiting.length;
  }

  readonly journal = {
    /** Resolves once the entry is committed, or waits in the buffer because the store is away. */
    append: async (entry: JournalEntry): Promise<void> => {
      if (this.journalWaiting.length > 0) return this.bufferJournal(entry);
      try {
        await this.health.guard('journal', () => this.store.journal.append(entry));
      } catch (error) {
        if (!isStoreUnavailable(error)) throw error;
        this.bufferJournal(entry);
      }
    },
    remove: async (ids: readonly number[]): Promise<void> => {
      try {
        await this.health.guard('journal', () => this.store.journal.remove(ids));
      } catch (error) {
        if (!isStoreUnavailable(error)) throw error;
        // Not urgent: the next start trims the journal to its bound again.
        if (this.journalRemovals.length < JOURNAL_BUFFER_MAX) this.journalRemovals.push(...ids);
      }
    },
  };

  readonly queue = {
    add: (action: QueuedAction): Promise<void> =>
      this.health.guard('queue', () => this.store.queue.add(action)),
    markDelivered: async (id: string): Promise<boolean> => {
      try {
        return await this.health.guard('queue', () => this.store.queue.markDelivered(id));
      } catch (error) {
        if (!isStoreUnavailable(error)) throw error;
        this.delivered.add(id);
        return true;
      }
    },
    remove: async (id: string): Promise<boolean> => {
      this.delivered.delete(id);
      try {
        return await this.health.guard('queue', () => this.store.queue.remove(id));
      } catch (error) {
        if (!isStoreUnavailable(error)) throw error;
        // Handed over again after a restart at worst: the agent runs an id once.
        this.queueRemovals.add(id);
        return true;
      }
    },
    load: (): Promise<QueuedAction[]> => this.store.queue.load(),
  };

  readonly identities = {
    save: (identities: readonly StoredIdentity[]): Promise<void> =>
      this.health.guard('identities', () => this.store.identities.save(identities)),
  };

  readonly boards = {
    beat: (row: BoardRow): Promise<void> =>
      this.health.guard('boards', () => this.store.boards.beat(row)),
    list: (): Promise<BoardRow[]> => this.store.boards.list(),
  };

  readonly silences = {
    save: (records: readonly SilenceRecord[]): Promise<void> =>
      this.health.guard('silences', () => this.store.silences.save(records)),
  };

  readonly enrollments = {
    put: (record: EnrollmentRecord): Promise<void> =>
      this.health.guard('enrollments', () => this.store.enrollments.put(record)),
  };

  readonly acks = {
    /** An acknowledgement given to a person: refused (503) while the store cannot write it. */
    put: (record: AckRecord): Promise<void> =>
      this.health.guard('acks', () => this.store.acks.put(record)),
    /** Acks that cover nothing any more: left behind if the store is away (they do no harm). */
    remove: (records: readonly AckRecord[]): Promise<void> =>
      this.health.guard('acks', () => this.store.acks.remove(records)),
  };

  /** Pending updates: kept before the update is handed (refused with 503 while the store is away). */
  readonly updates = {
    put: (record: PendingUpdateRecord): Promise<void> =>
      this.health.guard('updates', () => this.store.updates.put(record)),
    hand: (name: string, id: string): Promise<boolean> =>
      this.health.guard('updates', () => this.store.updates.hand(name, id)),
    remove: (name: string, id: string): Promise<boolean> =>
      this.health.guard('updates', () => this.store.updates.remove(name, id)),
    load: (): Promise<PendingUpdateRecord[]> => this.store.updates.load(),
  };

  /** Selector silences: kept before they hold (refused with 503 while the store is away). */
  readonly selectorSilences = {
    put: (record: SelectorSilenceRecord): Promise<void> =>
      this.health.guard('selector silences', () => this.store.selectorSilences.put(record)),
    remove: (id: string): Promise<boolean> =>
      this.health.guard('selector silences', () => this.store.selectorSilences.remove(id)),
    load: (): Promise<SelectorSilenceRecord[]> => this.store.selectorSilences.load(),
  };

  /** Auth records: a sign-in, token or person change is kept before it is answered. */
  readonly auth = {
    put: (record: AuthRecord): Promise<void> =>
      this.health.guard('auth', () => this.store.auth.put(record)),
    refresh: (record: AuthRecord): Promise<boolean> =>
      this.health.guard('auth', () => this.store.auth.refresh(record)),
    get: (kind: AuthKind, id: string, now: number): Promise<AuthRecord | null> =>
      this.store.auth.get(kind, id, now),
    remove: (kind: AuthKind, id: string): Promise<boolean> =>
      this.health.guard('auth', () => this.store.auth.remove(kind, id)),
    list: (kind: AuthKind, now: number): Promise<AuthRecord[]> => this.store.auth.list(kind, now),
    sweep: (now: number): Promise<number> => this.store.auth.sweep(now),
  };

  /** Board labels: kept before they are shown (refused with 503 while the store is away). */
  readonly labels = {
    put: (name: string, labels: Labels): Promise<void> =>
      this.health.guard('labels', () => this.store.labels.put(name, labels)),
    load: (): Promise<BoardLabelRecord[]> => this.store.labels.load(),
  };

  /** Web Push: the key pair is kept before it is given out, a subscription before its id. */
  readonly push = {
    keys: (candidate: PushKeys, at: number): Promise<PushKeys> =>
      this.health.guard('push', () => this.store.push.keys(candidate, at)),
    subscribe: (record: PushSubscriptionRecord, max: number) =>
      this.health.guard('push', () => this.store.push.subscribe(record, max)),
    unsubscribe: (id: string): Promise<boolean> =>
      this.health.guard('push', () => this.store.push.unsubscribe(id)),
    list: (): Promise<PushSubscriptionRecord[]> => this.store.push.list(),
  };

  /** The update-signing key: kept before it signs anything. */
  readonly signing = {
    key: (candidate: SigningKeys, at: number): Promise<SigningKeys> =>
      this.health.guard('signing', () => this.store.signing.key(candidate, at)),
  };

  /** Writes what waits (in order), then a heartbeat; throws at the first write that fails. */
  async recover(): Promise<void> {
    while (this.journalWaiting.length > 0) {
      const entry = this.journalWaiting[0] as JournalEntry;
      await this.store.journal.append(entry);
      this.journalWaiting.shift();
    }
    if (this.journalRemovals.length > 0) {
      await this.store.journal.remove(this.journalRemovals);
      this.journalRemovals = [];
    }
    for (const id of [...this.delivered]) {
      await this.store.queue.markDelivered(id);
      this.delivered.delete(id);
    }
    for (const id of [...this.queueRemovals]) {
      await this.store.queue.remove(id);
      this.queueRemovals.delete(id);
    }
    await this.store.ping();
  }

  /** Writes what waits, if the store lets it (at shutdown); false if something is left. */
  async flush(): Promise<boolean> {
    try {
      await this.recover();
      return true;
    } catch {
      return false;
    }
  }

  private bufferJournal(entry: JournalEntry): void {
    this.journalWaiting.push(entry);
    if (this.journalWaiting.length > JOURNAL_BUFFER_MAX) {
      this.journalWaiting.shift();
      this.journalDropped += 1;
    }
  }
}
