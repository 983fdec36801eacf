import type { Labels } from '../../shared/labels.js';
import { parseSelector, type Selector } from '../../shared/selector.js';

/** What a binding lets its holder do (DESIGN 15); each role can do what the ones before it can. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

/** A role over the machines a selector picks by their board labels (every machine: no selector). */
export interface Binding {
  readonly role: Role;
  readonly selector: Selector | null;
}

/** A binding as the API and the store write it. */
export interface BindingView {
  role: Role;
  selector: string | null;
}

/** What a scope is asked about: a machine's name and the labels set on the board. */
export interface Scoped {
  readonly name: string;
  /** Board labels only: an agent's own labels never decide access. */
  readonly boardLabels: Labels;
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

export function bindingView(b: Binding): BindingView {
  return { role: b.role, selector: b.selector === null ? null : b.selector.text };
}

/** Bindings from their written form; throws (SelectorError, or a plain Error) on a bad one. */
export function readBindings(views: readonly BindingView[]): Binding[] {
  return views.map((v) => {
    if (!isRole(v.role)) throw new Error(`not a role: ${String(v.role)}`);
    const selector =
      v.selector === null || v.selector.trim() === '' ? null : parseSelector(v.selector);
    return { role: v.role, selector: selector?.everything ? null : selector };
  });
}

/**
 * The one answer to "may this actor see or do this here" (STYLE: one place decides). Every
 * route, feed, export and MCP tool asks it; none tests a role itself.
 */
export class Scope {
  /** The highest role held over every machine (no selector), or 0. */
  private readonly wholeRank: number;
  private readonly topRank: number;

  constructor(readonly bindings: readonly Binding[]) {
    this.wholeRank = Math.max(0, ...bindings.filter((b) => b.selector === null).map(rankOf));
    this.topRank = Math.max(0, ...bindings.map(rankOf));
  }

  /** Whether the actor holds `role` over some machine (a route's first question). */
  has(role: Role): boolean {
    return this.topRank >= RANK[role];
  }

  /** Whether the actor holds `role` over every machine, whatever its labels. */
  whole(role: Role): boolean {
    return this.wholeRank >= RANK[role];
  }

  /** Whether `machine` is in the actor's sight: out of it, it is absent from every answer. */
  sees(machine: Scoped): boolean {
    return this.may('viewer', machine);
  }

  /** Whether the actor may do what `role` may do on `machine`. */
  may(role: Role, machine: Scoped): boolean {
    const rank = RANK[role];
    if (this.wholeRank >= rank) return true;
    for (const b of this.bindings) {
      if (rankOf(b) >= rank && b.selector?.matches(machine.boardLabels, machine.name)) return true;
    }
    return false;
  }

  /** Whether every one of `wanted` is within these bindings (nobody grants more than they hold). */
  covers(wanted: readonly Binding[]): boolean {
    return wanted.every((w) =>
      this.bindings.some(
        (b) =>
          rankOf(b) >= rankOf(w) &&
          (b.selector === null || w.selector?.narrows(b.selector) === true),
      ),
    );
  }
}

function rankOf(b: Binding): number {
  return RANK[b.role];
}

/** The scope of the board token: admin over everything. */
export const WHOLE_BOARD = new Scope([{ role: 'admin', selector: null }]);
