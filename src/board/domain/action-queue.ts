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
    if (this.forMachine(name).length >= this.maxPerMachine) return null;
    const queued: QueuedAction = {
      id: randomUUID(),
      name,
      what,
      action,
      requestedAt: this.clock.now(),
      delivered: false,
    };
    this.index(queued);
    try {
      await this.store.add(queued);
    } catch (error) {
      // Not on disk, so not acknowledged: it must not be handed over either.
      this.unindex(queued.id);
      throw error;
    }
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
    return (await this.store.remove(id)) ? a : undefined;
  }

  /**
   * Makes the queue what the store holds (of several boards, each reads what the others queued,
   * handed over and removed); answers the machines whose count changed.
   */
  replace(actions: readonly QueuedAction[]): Set<string> {
    const touched = new Set<string>(this.byMachine.keys());
    this.byId.clear();
    this.byMachine.clear();
    for (const action of actions) this.index({ ...action });
    for (const name of this.byMachine.keys()) touched.add(name);
    return touched;
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
