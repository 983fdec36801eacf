import type { ChangeSet } from '../domain/change-set.js';
import type { Membership } from './membership.js';
import { ownerOf } from './owners.js';

/**
 * Which board owns a machine, of several boards on one store: its owner among the live boards
 * (rendezvous hashing, owners.ts), and only it, polls the machine, records its history and sends
 * its notifications, so every event is recorded and sent once while the boards agree on who is
 * alive. A function of the membership and this board's id alone. With one live board, this
 * board owns everything.
 */
export class Ownership {
  private liveAtSweep: string[] = [];
  /** The live boards of this run of synchronous code (see live()), and their key. */
  private liveNow: { ids: string[]; key: string } | null = null;
  private ownerCache: { live: string; owners: Map<string, string | null> } = {
    live: '',
    owners: new Map(),
  };

  constructor(
    private readonly membership: Membership,
    private readonly self: () => string,
  ) {}

  /** A sweep starts: the boards alive now (see `boardsLost`). */
  sweepStarting(): void {
    this.liveAtSweep = this.membership.liveIds();
  }

  /** Whether a board alive when the last sweep started is dead now (its machines are ours to poll). */
  boardsLost(): boolean {
    const live = new Set(this.membership.liveIds());
    return this.liveAtSweep.some((id) => !live.has(id));
  }

  /** Whether other boards are alive (false: a single board, which owns everything). */
  clustered(): boolean {
    return this.live().ids.length > 1;
  }

  /**
   * The live boards' ids, read once per run of synchronous code: a loop over 15,000 machines
   * (the stale check, a change set's view) asks `owns` of each, and reading the membership
   * each time cost the stale check 20–40 ms at 15,000 announced machines.
   */
  private live(): { ids: string[]; key: string } {
    if (this.liveNow === null) {
      const ids = this.membership.liveIds();
      this.liveNow = { ids, key: ids.join('\n') };
      queueMicrotask(() => {
        this.liveNow = null;
      });
    }
    return this.liveNow;
  }

  /** Whether this board polls `name`, records its history and sends its notifications. */
  owns(name: string): boolean {
    const { ids: live, key } = this.live();
    if (live.length <= 1) return true;
    if (this.ownerCache.live !== key) this.ownerCache = { live: key, owners: new Map() };
    let owner = this.ownerCache.owners.get(name);
    if (owner === undefined) {
      owner = ownerOf(name, live);
      this.ownerCache.owners.set(name, owner);
    }
    return owner === this.self();
  }

  /** The change set as this board records and notifies it: only the machines it owns. */
  view(set: ChangeSet): ChangeSet {
    const seeded = (t: ChangeSet['transitions'][number]) =>
      t.remote === true && t.previous === null;
    if (!this.clustered()) {
      return set.transitions.some(seeded)
        ? { ...set, transitions: set.transitions.filter((t) => !seeded(t)) }
        : set;
    }
    const owns = (x: { name: string }) => this.owns(x.name);
    // A first sighting learnt from another board was that board's to record.
    const mine = (t: ChangeSet['transitions'][number]) => this.owns(t.name) && !seeded(t);
    let size = 0;
    for (const m of set.machines()) if (this.owns(m.name)) size += 1;
    const machines = set.machines;
    const self = this;
    return {
      ...set,
      transitions: set.transitions.filter(mine),
      late: set.late.filter(owns),
      bells: set.bells.filter(owns),
      machines: function* () {
        for (const m of machines()) if (self.owns(m.name)) yield m;
      },
      size,
    };
  }

  /**
   * Whether this board sends the notifications of `name`: its owner does; none while it is cut
   * off from the store with other boards about (they take its machines, and their
   * notifications, meanwhile).
   */
  notifies(name: string): boolean {
    if (!this.clustered()) return true;
    return this.owns(name) && !this.membership.cutOff();
  }
}
