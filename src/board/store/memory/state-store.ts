import type { Labels } from '../../../shared/labels.js';
import type { AuthKind, AuthRecord } from '../../auth/auth-table.js';
import type { QueuedAction } from '../../domain/action-queue.js';
import type { HistoryStore } from '../../history/history-store.js';
import type { Pending } from '../../notify/ports.js';
import type { SelectorSilenceRecord } from '../../notify/selector-silence-table.js';
import type { JournalEntry } from '../../schemas.js';
import type {
  AckRecord,
  BoardRow,
  BoardStore,
  EnrollmentRecord,
  Imported,
  PendingUpdateRecord,
  PublishedRecord,
  PushKeys,
  PushSubscriptionRecord,
  RecordToPublish,
  SentAlertRecord,
  SigningKeys,
  SilenceRecord,
  StoredIdentity,
} from '../state.js';
import { MemoryHistoryStore } from './history-store.js';

/**
 * The state in memory: the reference the engines are held to (it passes the same contract),
 * and the store of the domain's unit tests. Nothing survives the process.
 */
export class MemoryStore implements BoardStore {
  readonly engine = 'sqlite';
  readonly where = 'memory';
  private readonly journalRows = new Map<number, JournalEntry>();
  private readonly queueRows = new Map<string, QueuedAction>();
  private identityRows: StoredIdentity[] = [];
  private silenceRows: SilenceRecord[] = [];
  private readonly enrollmentRows = new Map<string, EnrollmentRecord>();
  private deliveryRows: Pending[] = [];
  private history: HistoryStore | null = null;
  /** Writes made, for tests that count them. */
  writes = 0;

  readonly journal = {
    append: async (e: JournalEntry) => {
      this.writes += 1;
      if (!this.journalRows.has(e.id)) this.journalRows.set(e.id, structuredClone(e));
    },
    remove: async (ids: readonly number[]) => {
      this.writes += 1;
      for (const id of ids) this.journalRows.delete(id);
    },
    load: async () =>
      [...this.journalRows.values()].sort((a, b) => a.id - b.id).map((e) => ({ ...e })),
    recent: async (limit: number, before?: { at: string; id: number }) =>
      [...this.journalRows.values()]
        .filter(
          (e) =>
            before === undefined || e.at < before.at || (e.at === before.at && e.id < before.id),
        )
        .sort((a, b) => (a.at === b.at ? b.id - a.id : a.at < b.at ? 1 : -1))
        .slice(0, limit)
        .map((e) => ({ ...e })),
  };

  readonly queue = {
    add: async (a: QueuedAction) => {
      this.writes += 1;
      if (this.queueRows.has(a.id)) throw new Error(`queue: duplicate id ${a.id}`);
      this.queueRows.set(a.id, { ...a });
    },
    markDelivered: async (id: string) => {
      this.writes += 1;
      const a = this.queueRows.get(id);
      if (a === undefined || a.delivered) return false;
      a.delivered = true;
      return true;
    },
    remove: async (id: string) => {
      this.writes += 1;
      return this.queueRows.delete(id);
    },
    load: async () => [...this.queueRows.values()].map((a) => ({ ...a })),
  };

  readonly identities = {
    save: async (identities: readonly StoredIdentity[]) => {
      this.writes += 1;
      this.identityRows = identities.map((i) => ({ ...i }));
    },
    load: async () =>
      this.identityRows.map((i) => ({ ...i })).sort((a, b) => (a.name < b.name ? -1 : 1)),
  };

  readonly silences = {
    save: async (records: readonly SilenceRecord[]) => {
      this.writes += 1;
      this.silenceRows = records.map((r) => ({ ...r }));
    },
    load: async () =>
      this.silenceRows.map((r) => ({ ...r })).sort((a, b) => (a.name < b.name ? -1 : 1)),
  };

  readonly enrollments = {
    put: async (record: EnrollmentRecord) => {
      this.writes += 1;
      this.enrollmentRows.set(record.name, { ...record });
    },
    load: async () =>
      [...this.enrollmentRows.values()]
        .map((r) => ({ ...r }))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
  };

  private readonly authRows = new Map<string, AuthRecord>();

  readonly auth = {
    put: async (r: AuthRecord) => {
      this.writes += 1;
      this.authRows.set(`${r.kind}\n${r.id}`, { ...r });
    },
    refresh: async (r: AuthRecord) => {
      if (!this.authRows.has(`${r.kind}\n${r.id}`)) return false;
      this.writes += 1;
      this.authRows.set(`${r.kind}\n${r.id}`, { ...r });
      return true;
    },
    get: async (kind: AuthKind, id: string, now: number) => {
      const r = this.authRows.get(`${kind}\n${id}`);
      return r === undefined || (r.expires_at !== null && r.expires_at <= now) ? null : { ...r };
    },
    remove: async (kind: AuthKind, id: string) => {
      this.writes += 1;
      return this.authRows.delete(`${kind}\n${id}`);
    },
    list: async (kind: AuthKind, now: number) =>
      [...this.authRows.values()]
        .filter((r) => r.kind === kind && (r.expires_at === null || r.expires_at > now))
        .map((r) => ({ ...r }))
        .sort((a, b) => (a.id < b.id ? -1 : 1)),
    sweep: async (now: number) => {
      let gone = 0;
      for (const [key, r] of this.authRows) {
        if (r.expires_at !== null && r.expires_at <= now) gone += Number(this.authRows.delete(key));
      }
      return gone;
    },
  };

  private readonly selectorSilenceRows = new Map<string, SelectorSilenceRecord>();

  readonly selectorSilences = {
    put: async (r: SelectorSilenceRecord) => {
      this.writes += 1;
      this.selectorSilenceRows.set(r.id, { ...r });
    },
    remove: async (id: string) => {
      this.writes += 1;
      return this.selectorSilenceRows.delete(id);
    },
    load: async () =>
      [...this.selectorSilenceRows.values()]
        .map((r) => ({ ...r }))
        .sort((a, b) => (a.id < b.id ? -1 : 1)),
  };

  private readonly labelRows = new Map<string, Labels>();

  readonly labels = {
    put: async (name: string, labels: Labels) => {
      this.writes += 1;
      if (Object.keys(labels).length === 0) this.labelRows.delete(name);
      else this.labelRows.set(name, labels);
    },
    load: async () =>
      [...this.labelRows]
        .map(([name, labels]) => ({ name, labels }))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
  };

  private readonly updateRows = new Map<string, PendingUpdateRecord>();

  readonly updates = {
    put: async (r: PendingUpdateRecord) => {
      this.writes += 1;
      this.updateRows.set(r.name, { ...r });
    },
    hand: async (name: string, id: string) => {
      const row = this.updateRows.get(name);
      if (row?.id !== id || !row.queued) return false;
      this.writes += 1;
      row.queued = false;
      return true;
    },
    remove: async (name: string, id: string) => {
      if (this.updateRows.get(name)?.id !== id) return false;
      this.writes += 1;
      return this.updateRows.delete(name);
    },
    load: async () =>
      [...this.updateRows.values()]
        .map((r) => ({ ...r }))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
  };

  /** By machine and session (a key that cannot be two pairs: names hold no line feed). */
  private readonly ackRows = new Map<string, AckRecord>();

  readonly acks = {
    put: async (r: AckRecord) => {
      this.writes += 1;
      const key = `${r.machine}\n${r.session}`;
      const held = this.ackRows.get(key);
      if (held === undefined || held.bell_at <= r.bell_at) this.ackRows.set(key, { ...r });
    },
    remove: async (records: readonly AckRecord[]) => {
      this.writes += 1;
      for (const r of records) {
        const key = `${r.machine}\n${r.session}`;
        if (this.ackRows.get(key)?.bell_at === r.bell_at) this.ackRows.delete(key);
      }
    },
    load: async () =>
      [...this.ackRows.values()]
        .map((r) => ({ ...r }))
        .sort((a, b) =>
          a.machine !== b.machine
            ? a.machine < b.machine
              ? -1
              : 1
            : a.session < b.session
              ? -1
              : a.session > b.session
                ? 1
                : 0,
        ),
  };

  private boardRows = new Map<string, BoardRow>();

  readonly boards = {
    beat: async (row: BoardRow) => {
      this.boardRows.set(row.id, { ...row });
    },
    list: async () =>
      [...this.boardRows.values()].map((b) => ({ ...b })).sort((a, b) => (a.id < b.id ? -1 : 1)),
  };

  private recordRows = new Map<string, PublishedRecord>();
  private version = 0;
  private readonly wakers = new Set<() => void>();

  readonly records = {
    publish: async (board: string, rows: readonly RecordToPublish[]) => {
      for (const r of rows) {
        this.version += 1;
        this.recordRows.set(r.name, {
          name: r.name,
          board,
          version: this.version,
          record: r.record,
          meta: r.meta,
        });
      }
      for (const wake of this.wakers) wake();
    },
    since: async (board: string, version: number, limit: number) =>
      [...this.recordRows.values()]
        .filter((r) => r.board === board && r.version > version)
        .sort((a, b) => a.version - b.version)
        .slice(0, limit)
        .map((r) => ({ ...r })),
    listen: async (wake: () => void) => {
      this.wakers.add(wake);
      return async () => {
        this.wakers.delete(wake);
      };
    },
  };

  private claimRows = new Map<
    string,
    { board: string; at: number; event: string; settled: boolean }
  >();

  readonly claims = {
    claim: async (
      board: string,
      items: readonly { key: string; event: string }[],
      at: number,
      windowMs: number,
    ) =>
      items
        .filter((item) => {
          const last = this.claimRows.get(item.key);
          if (last !== undefined && last.at >= at - windowMs) return false;
          this.claimRows.set(item.key, { board, at, event: item.event, settled: false });
          return true;
        })
        .map((item) => item.key),
    settle: async (keys: readonly string[]) => {
      for (const key of keys) {
        const row = this.claimRows.get(key);
        if (row !== undefined) row.settled = true;
      }
    },
    takeOver: async (board: string, dead: readonly string[], since: number, at: number) => {
      const taken: { key: string; event: string }[] = [];
      for (const [key, row] of this.claimRows) {
        if (row.settled || !dead.includes(row.board) || row.at < since) continue;
        row.board = board;
        row.at = at;
        taken.push({ key, event: row.event });
      }
      return taken;
    },
  };

  private signingKeys: SigningKeys | null = null;

  readonly signing = {
    key: async (candidate: SigningKeys) => {
      this.signingKeys ??= { ...candidate };
      return { ...this.signingKeys };
    },
  };

  private readonly alertRows = new Map<string, SentAlertRecord>();

  readonly alerts = {
    put: async (r: SentAlertRecord) => {
      this.writes += 1;
      this.alertRows.set(r.key, { ...r });
    },
    remove: async (keys: readonly string[]) => {
      this.writes += 1;
      for (const key of keys) this.alertRows.delete(key);
    },
    load: async () =>
      [...this.alertRows.values()].map((r) => ({ ...r })).sort((a, b) => (a.key < b.key ? -1 : 1)),
  };

  private pushKeys: PushKeys | null = null;
  private readonly pushRows = new Map<string, PushSubscriptionRecord>();

  readonly push = {
    keys: async (candidate: PushKeys) => {
      this.pushKeys ??= { ...candidate };
      return { ...this.pushKeys };
    },
    subscribe: async (r: PushSubscriptionRecord, max: number) => {
      this.writes += 1;
      const known = [...this.pushRows.values()].find((s) => s.endpoint === r.endpoint);
      if (known !== undefined) {
        known.p256dh = r.p256dh;
        known.auth = r.auth;
        return { id: known.id, added: false };
      }
      if (this.pushRows.size >= max) return null;
      this.pushRows.set(r.id, { ...r });
      return { id: r.id, added: true };
    },
    unsubscribe: async (id: string) => {
      this.writes += 1;
      return this.pushRows.delete(id);
    },
    list: async () =>
      [...this.pushRows.values()]
        .map((r) => ({ ...r }))
        .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1)),
  };

  readonly deliveries = {
    keep: async (pending: readonly Pending[]) => {
      this.deliveryRows.push(...structuredClone([...pending]));
    },
    take: async () => {
      const taken = this.deliveryRows;
      this.deliveryRows = [];
      return taken;
    },
  };

  async importAll(data: Imported): Promise<void> {
    for (const e of data.journal)
      if (!this.journalRows.has(e.id)) this.journalRows.set(e.id, { ...e });
    for (const a of data.queue) if (!this.queueRows.has(a.id)) this.queueRows.set(a.id, { ...a });
    const names = new Set(this.identityRows.map((i) => i.name));
    this.identityRows.push(...data.identities.filter((i) => !names.has(i.name)));
    const silenced = new Set(this.silenceRows.map((s) => s.name));
    this.silenceRows.push(...data.silences.filter((s) => !silenced.has(s.name)));
    this.deliveryRows.push(...data.deliveries);
  }

  async ping(): Promise<void> {}

  async openHistory(): Promise<HistoryStore> {
    this.history ??= new MemoryHistoryStore();
    return this.history;
  }

  async close(): Promise<void> {
    await this.history?.close();
  }
}
