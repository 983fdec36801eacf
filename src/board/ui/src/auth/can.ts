import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Labels } from '../../../../shared/labels.js';
import { parseSelector, type Selector } from '../../../../shared/selector.js';
import type { Machine } from '../api/types.js';

/** A role binding as GET /api/me writes it. */
export interface BindingView {
  role: string;
  selector: string | null;
}

type Role = 'viewer' | 'operator' | 'admin';
const RANK: Record<string, number> = { viewer: 1, operator: 2, admin: 3 };

/**
 * What the signed-in person may do, asked by every component that shows a control (they never
 * test role names). The board decides again on every request: this only hides what would fail.
 */
export interface Can {
  /** Start, stop, acknowledge, silence, update on this machine (operator there). */
  operate(machine: Machine): boolean;
  /** Labels and forget on this machine (admin there). */
  administer(machine: Machine): boolean;
  /** What asks about the whole fleet: the cluster line, notification channels. */
  seeAll(): boolean;
  /** What needs a role over every machine: update all. */
  operateAll(): boolean;
  /** Add a machine (enroll) and the list of enrolled ones (admin over every machine). */
  enroll(): boolean;
  /** The People page and channel tests (admin over some machine). */
  managePeople(): boolean;
  testChannels(): boolean;
}

/** The board token, or a board too old to say: every control (the board still decides). */
export const EVERYTHING: Can = {
  operate: () => true,
  administer: () => true,
  seeAll: () => true,
  operateAll: () => true,
  enroll: () => true,
  managePeople: () => true,
  testChannels: () => true,
};

/** A machine's board labels: the record's labels restricted to the keys the board set. */
function boardLabels(m: Machine): Labels {
  const out: Record<string, string> = {};
  for (const k of m.boardLabels) {
    const v = m.labels[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** The same answer as the board's Scope (src/board/auth/roles.ts), over /api/me's bindings. */
export function canOf(bindings: readonly BindingView[]): Can {
  const parsed: { rank: number; selector: Selector | null }[] = [];
  for (const b of bindings) {
    const rank = RANK[b.role] ?? 0;
    let selector: Selector | null = null;
    try {
      selector = b.selector === null || b.selector.trim() === '' ? null : parseSelector(b.selector);
    } catch {
      continue; // a binding the page cannot read grants nothing here
    }
    parsed.push({ rank, selector: selector?.everything === true ? null : selector });
  }
  const whole = Math.max(0, ...parsed.filter((b) => b.selector === null).map((b) => b.rank));
  const top = Math.max(0, ...parsed.map((b) => b.rank));
  const may = (role: Role, m: Machine): boolean => {
    const rank = RANK[role] ?? 0;
    if (whole >= rank) return true;
    const labels = boardLabels(m);
    return parsed.some((b) => b.rank >= rank && b.selector?.matches(labels, m.name) === true);
  };
  return {
    operate: (m) => may('operator', m),
    administer: (m) => may('admin', m),
    seeAll: () => whole >= 1,
    operateAll: () => whole >= 2,
    enroll: () => whole >= 3,
    managePeople: () => top >= 3,
    testChannels: () => top >= 3,
  };
}

export const CanContext = createContext<Can>(EVERYTHING);

/** What the signed-in person may do here. */
export function useCan(): Can {
  return useContext(CanContext);
}
