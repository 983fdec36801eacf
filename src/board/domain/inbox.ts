import type { Clock } from '../../shared/clock.js';
import type { Who } from '../schemas.js';
import type { Answer } from './answer.js';
import type { ChangeSet } from './change-set.js';
import { wantsPerson } from './held-sessions.js';
import type { Journal } from './journal.js';
import type { Machine } from './machine.js';
import type { SessionMark } from './metrics.js';
import { noted, type Via } from './outcome.js';
import type { Registry } from './registry.js';
import { isStoreUnavailable } from './store-unavailable.js';

/** A person's acknowledgement of one session's bell, as the store keeps it. */
export interface AckRecord {
  machine: string;
  session: string;
  /** The `at` of the bell acknowledged (as the agent sent it): a newer bell is not covered. */
  bell_at: string;
  /** ms since the epoch. */
  acked_at: number;
}

/** Where acknowledgements are kept (store/; every board sharing the store reads the same). */
export interface AckStore {
  /**
   * Keeps the ack of its machine and session, replacing one of an older or the same bell (one
   * of a newer bell, written meanwhile through another board, stays). Resolves once durable.
   */
  put(record: AckRecord): Promise<void>;
  /** Drops these acks, each only while the stored one is of the same bell. */
  remove(records: readonly AckRecord[]): Promise<void>;
}

/** `open`: only sessions waiting for a person; `all`: every session. */
export type SessionState = 'open' | 'all';

/** One session as GET /api/sessions lists it. */
export interface SessionRow {
  machine: string;
  session: string;
  why: string;
  text: string;
  at: string;
  waiting_s: number;
  acknowledged_at: string | null;
  machine_state: 'up' | 'down';
}

/** GET /api/sessions' answer: the first `limit` sessions in order, and how many matched. */
export interface SessionPage {
  sessions: SessionRow[];
  total: number;
}

/** Where a page of sessions ends (MCP's cursor): the next page starts after it in order. */
export interface SessionKey {
  open: boolean;
  at: string;
  machine: string;
  session: string;
}

/** The key of a listed session. */
export function sessionKey(row: SessionRow): SessionKey {
  return {
    open: row.acknowledged_at === null && wantsPerson(row.why),
    at: row.at,
    machine: row.machine,
    session: row.session,
  };
}

interface Ack {
  bellAt: string;
  ackedAt: number;
}

/** A session on its way into the answer (only the first `limit` of them are kept). */
interface Candidate {
  machine: Machine;
  mark: SessionMark;
  open: boolean;
  ack: Ack | null;
}

export { wantsPerson };

/** Whether `ack` covers the bell `mark` (the session has not rung since it was acknowledged). */
function covers(ack: Ack | undefined, mark: SessionMark): ack is Ack {
  return ack !== undefined && mark.at <= ack.bellAt;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The inbox's order: open sessions first, longest waiting (oldest bell) first; then the rest,
 * newest first; machine and session names break ties. Bell times are compared as the agents
 * write them (ISO 8601 in UTC, as the registry compares them for new bells).
 */
function before(
  aOpen: boolean,
  aAt: string,
  aMachine: string,
  aSession: string,
  b: Candidate,
): boolean {
  if (aOpen !== b.open) return aOpen;
  const at = aOpen ? compareText(aAt, b.mark.at) : compareText(b.mark.at, aAt);
  if (at !== 0) return at < 0;
  const machine = compareText(aMachine, b.machine.name);
  if (machine !== 0) return machine < 0;
  return compareText(aSession, b.mark.session) < 0;
}

/** Whether a session comes after `key` in the inbox's order. */
function afterKey(key: SessionKey, open: boolean, at: string, machine: string, session: string) {
  if (key.open !== open) return key.open;
  const t = key.open ? compareText(key.at, at) : compareText(at, key.at);
  if (t !== 0) return t < 0;
  const m = compareText(key.machine, machine);
  if (m !== 0) return m < 0;
  return compareText(key.session, session) < 0;
}

const precedes = (a: Candidate, b: Candidate): boolean =>
  before(a.open, a.mark.at, a.machine.name, a.mark.session, b);

/**
 * The attention inbox: every session of every machine (the registry keeps each machine's
 * sessions as its last overview listed them, already parsed), and the acknowledgements people
 * gave. A session is open while its latest bell is `attention` or `error` and nobody
 * acknowledged it since; an acknowledgement holds until the session rings again (a newer `at`).
 * Acknowledgements are kept in the store (every board of a cluster reads them: `sync`), and
 * forgotten once they cover nothing: the session rang again or is no longer listed, or the
 * machine was forgotten.
 */
export class Inbox {
  /** Acks by machine, then by session. */
  private readonly acks = new Map<string, Map<string, Ack>>();
  private changes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly registry: Registry,
    private readonly journal: Journal,
    private readonly store: AckStore,
    loaded: readonly AckRecord[] = [],
    /** Hears of a failed removal of acks that cover nothing (they are only left behind). */
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.replace(loaded);
  }

  /**
   * GET /api/sessions: the first `limit` sessions in the inbox's order (those after `after`
   * when given: MCP's pages), and how many match in all; of the machines `sees` keeps.
   */
  list(
    state: SessionState,
    limit: number,
    after: SessionKey | null = null,
    sees: (machine: Machine) => boolean = () => true,
  ): SessionPage {
    // A bounded heap of the best `limit` so far (its root the last of them): 2,000,000 sessions
    // cost one comparison each, not a sort of them all.
    const heap: Candidate[] = [];
    let total = 0;
    for (const machine of this.registry.all()) {
      if (machine.sessions.length === 0 || !sees(machine)) continue;
      const acks = this.acks.get(machine.name);
      for (const mark of machine.sessions) {
        const ack = acks?.get(mark.session);
        const held = covers(ack, mark);
        const open = !held && wantsPerson(mark.why);
        if (state === 'open' && !open) continue;
        total += 1;
        if (after !== null && !afterKey(after, open, mark.at, machine.name, mark.session)) continue;
        if (heap.length < limit) {
          heap.push({ machine, mark, open, ack: held ? ack : null });
          siftUp(heap, heap.length - 1);
        } else if (
          heap.length > 0 &&
          before(open, mark.at, machine.name, mark.session, heap[0] as Candidate)
        ) {
          heap[0] = { machine, mark, open, ack: held ? ack : null };
          siftDown(heap, 0);
        }
      }
    }
    const now = this.clock.now();
    const sessions = heap
      .sort((a, b) => (precedes(a, b) ? -1 : precedes(b, a) ? 1 : 0))
      .map((c) => row(c, now));
    return { sessions, total };
  }

  /** POST /api/sessions/{machine}/{session}/ack, and MCP's acknowledge_session (`via`). */
  async acknowledge(who: Who, machine: string, session: string, via?: Via): Promise<Answer> {
    const m = this.registry.get(machine);
    if (m === undefined) return notFound(`No machine named '${machine}' on this board`);
    const mark = m.sessions.find((s) => s.session === session);
    if (mark === undefined)
      return notFound(`Machine '${machine}' lists no session named '${session}'`);
    const existing = this.acks.get(machine)?.get(session);
    let ack: Ack;
    let detail: string;
    if (covers(existing, mark)) {
      ack = existing;
      detail = `${mark.why} bell of ${mark.at}, already acknowledged`;
    } else {
      ack = { bellAt: mark.at, ackedAt: this.clock.now() };
      this.changes += 1;
      try {
        await this.store.put(record(machine, session, ack));
      } finally {
        this.changes += 1;
      }
      this.set(machine, session, ack);
      this.publish(machine);
      detail = `${mark.why} bell of ${mark.at}`;
    }
    const acknowledgedAt = new Date(ack.ackedAt).toISOString();
    await this.journal.record({
      who,
      op: 'ack',
      target: `${machine}/${session}`,
      outcome: 'acknowledged',
      status: 200,
      detail: noted(detail, via),
    });
    return { status: 200, body: { machine, session, acknowledged_at: acknowledgedAt } };
  }

  /** Bumped before and after each write made here (see `sync`). */
  get version(): number {
    return this.changes;
  }

  /**
   * Makes the acks those the store holds (of several boards: one given through another board
   * holds here too), unless an ack was written here while the store was read (`version`).
   */
  sync(records: readonly AckRecord[], version: number): void {
    if (version !== this.version) return;
    this.replace(records);
  }

  /** Reads the store's acks and takes them (`sync`). */
  async syncFrom(load: () => Promise<AckRecord[]>): Promise<void> {
    const seen = this.version;
    this.sync(await load(), seen);
  }

  /**
   * Forgets the acks that cover nothing any more: those of machines forgotten, and of the
   * machines that changed, those whose session rang again or is no longer listed (only from an
   * up machine's fresh sessions: a machine not heard from since a restart lists none yet).
   */
  onChangeSet(set: ChangeSet): void {
    if (this.acks.size === 0) return;
    const gone: AckRecord[] = [];
    for (const name of set.removed) {
      const acks = this.acks.get(name);
      if (acks === undefined || this.registry.get(name) !== undefined) continue;
      for (const [session, ack] of acks) gone.push(record(name, session, ack));
      this.acks.delete(name);
    }
    for (const name of set.changed) {
      const acks = this.acks.get(name);
      const machine = this.registry.get(name);
      if (acks === undefined || machine === undefined) continue;
      // A machine added since its acks were read (a report after a restart) is given them.
      if (machine.acks !== acks) this.publish(name);
      if (machine.state !== 'up') continue;
      const listed = new Map(machine.sessions.map((s) => [s.session, s]));
      const held = acks.size;
      for (const [session, ack] of acks) {
        const mark = listed.get(session);
        if (mark !== undefined && covers(ack, mark)) continue;
        gone.push(record(name, session, ack));
        acks.delete(session);
      }
      if (acks.size === 0) this.acks.delete(name);
      if (acks.size !== held) this.publish(name);
    }
    if (gone.length === 0) return;
    this.store.remove(gone).catch((error: unknown) => {
      if (!isStoreUnavailable(error)) this.onError(error);
    });
  }

  /** How many acks are held (for tests and /metrics). */
  size(): number {
    let n = 0;
    for (const acks of this.acks.values()) n += acks.size;
    return n;
  }

  private replace(records: readonly AckRecord[]): void {
    const before = new Map(this.acks);
    this.acks.clear();
    for (const r of records)
      this.set(r.machine, r.session, { bellAt: r.bell_at, ackedAt: r.acked_at });
    // Only the machines whose acks differ (a sync every second must not redo every record).
    for (const name of new Set([...before.keys(), ...this.acks.keys()])) {
      const was = before.get(name);
      if (!sameAcks(was, this.acks.get(name))) this.publish(name);
      else if (was !== undefined) this.acks.set(name, was);
    }
  }

  private set(machine: string, session: string, ack: Ack): void {
    let acks = this.acks.get(machine);
    if (acks === undefined) {
      acks = new Map();
      this.acks.set(machine, acks);
    }
    const held = acks.get(session);
    // One of a newer bell stays (see AckStore.put).
    if (held === undefined || held.bellAt <= ack.bellAt) acks.set(session, ack);
  }

  /** Gives the machine's record its acks now (its card and the live feed show them). */
  private publish(machine: string): void {
    const acks = this.acks.get(machine) ?? null;
    this.registry.update(machine, (m) => {
      m.acks = acks;
      return true;
    });
  }
}

function sameAcks(a: Map<string, Ack> | undefined, b: Map<string, Ack> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.size !== b.size) return false;
  for (const [session, ack] of a) {
    const other = b.get(session);
    if (other === undefined || other.bellAt !== ack.bellAt || other.ackedAt !== ack.ackedAt)
      return false;
  }
  return true;
}

function record(machine: string, session: string, ack: Ack): AckRecord {
  return { machine, session, bell_at: ack.bellAt, acked_at: ack.ackedAt };
}

function row(c: Candidate, now: number): SessionRow {
  const rang = Date.parse(c.mark.at);
  return {
    machine: c.machine.name,
    session: c.mark.session,
    why: c.mark.why,
    text: c.mark.text,
    at: c.mark.at,
    waiting_s: Number.isNaN(rang) ? 0 : Math.max(0, Math.floor((now - rang) / 1000)),
    acknowledged_at: c.ack === null ? null : new Date(c.ack.ackedAt).toISOString(),
    machine_state: c.machine.state,
  };
}

function notFound(detail: string): Answer {
  return { status: 404, body: { detail } };
}

// The heap keeps the worst of the kept candidates at its root.
function worse(heap: Candidate[], i: number, j: number): boolean {
  return precedes(heap[j] as Candidate, heap[i] as Candidate);
}

function swap(heap: Candidate[], i: number, j: number): void {
  const t = heap[i] as Candidate;
  heap[i] = heap[j] as Candidate;
  heap[j] = t;
}

function siftUp(heap: Candidate[], i: number): void {
  let at = i;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!worse(heap, at, parent)) return;
    swap(heap, at, parent);
    at = parent;
  }
}

function siftDown(heap: Candidate[], i: number): void {
  let at = i;
  for (;;) {
    const l = 2 * at + 1;
    const r = l + 1;
    let worst = at;
    if (l < heap.length && worse(heap, l, worst)) worst = l;
    if (r < heap.length && worse(heap, r, worst)) worst = r;
    if (worst === at) return;
    swap(heap, at, worst);
    at = worst;
  }
}
