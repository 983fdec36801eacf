import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import type { ActionName } from '../../shared/wire/common.js';

/** An action waiting for an announced machine to call in. */
export interface QueuedAction {
  id: string;
  name: string;
  what: string;
  action: ActionName;
  /** ms since the epoch. */
  requestedAt: number;
  /** Whether it has been handed over in a report's answer at least once. */
  delivered: boolean;
}

/** Where queued actions are kept durably: each call resolves once its change is durable. */
export interface QueueStore {
  add(action: QueuedAction): Promise<void>;
  /** True if this call marked it (of several boards, the one that hands it over first). */
  markDelivered(id: string): Promise<boolean>;
  /** True if this call removed it (of several boards, the one that journals its end). */
  remove(id: string): Promise<boolean>;
}

export const QUEUE_EXPIRY_MS = 24 * 60 * 60 * 1000;

/**
 * Actions queued for announced machines the board cannot reach. Every change is on disk
 * before it is acknowledged; an action leaves only when a report carries its result, when it
 * expires, or when its machine is forgotten.
 */
export class ActionQueue {
  private readonly byId = new Map<string, QueuedAction>();
  /** The same actions by machine, in the order they were queued (reports look here). */
  private readonly byMachine = new Map<string, Map<string, QueuedAction>>();
  /** Adds under way per machine (not yet durable, so not listed): counted against the cap. */
  private readonly adding = new Map<string, number>();
  /** Removals whose store write is under way. */
  private readonly removing = new Set<string>();
  /** While `sync` reads the store: what was added and removed here meanwhile. */
  private reading = false;
  private readonly addedInRead = new Set<string>();
  private readonly removedInRead = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly store: QueueStore,
    loaded: readonly QueuedAction[],
    private readonly maxPerMachine = 1000,
  ) {
    for (const action of loaded) this.index({ ...action });
  }

  /** Queues an action; resolves once it is on disk. */
  async add(name: string, what: string, action: ActionName): Promise<QueuedAction | null> {
    const adding = this.adding.get(name) ?? 0;
    if (this.count(name) + adding >= this.maxPerMachine) return null;
    const queued: QueuedAction = {
      id: randomUUID(),
      name,
      what,
      action,
      requestedAt: this.clock.now(),
      delivered: false,
    };
    // Listed (so handed over) only once on disk: a report taken while the write is under way
    // must not hand it over, nor take its result before the row exists — the store would not
    // find it, and the result would be acknowledged without a journal entry.
    this.adding.set(name, adding + 1);
    try {
      await this.store.add(queued);
    } finally {
      const left = (this.adding.get(name) ?? 1) - 1;
      if (left > 0) this.adding.set(name, left);
      else this.adding.delete(name);
    }
    this.index(queued);
    if (this.reading) this.addedInRead.add(queued.id);
    return queued;
  }

  /** The actions waiting for a machine, oldest first. */
  forMachine(name: string): QueuedAction[] {
    return [...(this.byMachine.get(name)?.values() ?? [])];
  }

  count(name: string): number {
    return this.byMachine.get(name)?.size ?? 0;
  }

  get(id: string): QueuedAction | undefined {
    return this.byId.get(id);
  }

  /** Notes that an action was handed over; true the first time. */
  async markDelivered(id: string): Promise<boolean> {
    const a = this.byId.get(id);
    if (a === undefined || a.delivered) return false;
    a.delivered = true;
    return this.store.markDelivered(id);
  }

  /**
   * Takes an action out of the queue for good; answers it if this call took it out of the store
   * (of several boards sharing the store, exactly one does: that one journals it).
   */
  async remove(id: string): Promise<QueuedAction | undefined> {
    const a = this.unindex(id);
    if (a === undefined) return undefined;
    this.removing.add(id);
    try {
      return (await this.store.remove(id)) ? a : undefined;
    } finally {
      this.removing.delete(id);
      if (this.reading) this.removedInRead.add(id);
    }
  }

  /**
   * Makes the queue what the store holds (of several boards, each reads what the others queued,
   * handed over and removed); answers the machines whose count changed. What was added or
   * removed here while `load` read stays so, since the read may not have seen it: an action
   * queued here meanwhile would otherwise vanish until the next read (and a result for it be
   * taken without a journal entry), and one taken out would be handed over again.
   */
  async sync(load: () => Promise<readonly QueuedAction[]>): Promise<Set<string>> {
    this.reading = true;
    try {
      const actions = await load();
      const touched = new Set<string>(this.byMachine.keys());
      const keep = [...this.addedInRead].map((id) => this.byId.get(id));
      this.byId.clear();
      this.byMachine.clear();
      for (const action of actions) {
        const gone = this.removing.has(action.id) || this.removedInRead.has(action.id);
        if (!gone) this.index({ ...action });
      }
      for (const action of keep) if (action !== undefined) this.index(action);
      for (const name of this.byMachine.keys()) touched.add(name);
      return touched;
    } finally {
      this.reading = false;
      this.addedInRead.clear();
      this.removedInRead.clear();
    }
  }

  /** The actions older than the expiry, which the caller removes and journals. */
  expired(): QueuedAction[] {
    const limit = this.clock.now() - QUEUE_EXPIRY_MS;
    return [...this.byId.values()].filter((a) => a.requestedAt <= limit);
  }

  private index(a: QueuedAction): void {
    this.byId.set(a.id, a);
    let mine = this.byMachine.get(a.name);
    if (mine === undefined) {
      mine = new Map();
      this.byMachine.set(a.name, mine);
    }
    mine.set(a.id, a);
  }

  private unindex(id: string): QueuedAction | undefined {
    const a = this.byId.get(id);
    if (a === undefined) return undefined;
    this.byId.delete(id);
    const mine = this.byMachine.get(a.name);
    mine?.delete(id);
    if (mine?.size === 0) this.byMachine.delete(a.name);
    return a;
  }
}
