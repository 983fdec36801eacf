import type { Scope, Scoped } from '../auth/roles.js';
import type { JournalEntry } from '../schemas.js';

/** Ops whose target is not a machine (a person, a token, a channel): whole-board readers only. */
const NOT_ABOUT_A_MACHINE = new Set(['auth', 'notify']);

/**
 * Whether a journal entry is in the actor's sight: null (everything) for a viewer of the whole
 * board, else only entries about a machine on the board that the scope sees (by its target's
 * first part); what concerns no machine, or one out of sight or forgotten, is absent.
 */
export function entryInSight(
  scope: Scope,
  machine: (name: string) => Scoped | undefined,
): ((entry: JournalEntry) => boolean) | null {
  if (scope.whole('viewer')) return null;
  return (e) => {
    if (NOT_ABOUT_A_MACHINE.has(e.op)) return false;
    const m = machine(e.target.split('/')[0] ?? '');
    return m !== undefined && scope.sees(m);
  };
}
