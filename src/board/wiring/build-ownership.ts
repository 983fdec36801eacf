import type { Clock } from '../../shared/clock.js';
import { ForgetNotices } from '../cluster/forget-notices.js';
import { Membership } from '../cluster/membership.js';
import { Ownership } from '../cluster/ownership.js';
import type { OpenedStore } from '../store/open-store.js';
import type { CurrentSettings } from './current-settings.js';

/** What the domain needs of the other boards: who owns what, and how to tell them of a forget. */
export interface ClusterBasis {
  /** This board's id. */
  self: () => string;
  /** The boards sharing the store (their heartbeats) and this one's. */
  membership: Membership;
  ownership: Ownership;
  notices: ForgetNotices;
}

/** Builds the membership and ownership (a single board owns everything) before the domain. */
export function buildOwnership(
  state: OpenedStore,
  current: CurrentSettings,
  clock: Clock,
): ClusterBasis {
  const self = () => current.get().boardId;
  const membership = new Membership(
    state.tables.boards,
    () => {
      const s = current.get();
      return { id: s.boardId, machines: s.machines.length, failoverAfterMs: s.failoverAfterMs };
    },
    () => clock.now(),
  );
  const ownership = new Ownership(membership, self);
  const notices = new ForgetNotices({ self, records: state.store.records, ownership });
  return { self, membership, ownership, notices };
}
