import { journalSeen } from '../auth/journal-sight.js';
import type { Scope, Scoped } from '../auth/roles.js';
import type { JournalEntry } from '../schemas.js';

/**
 * The journal entries the actor is shown (the same rule as GET /api/journal and the live feed),
 * or null: every entry (an unscoped admin).
 */
export function entryInSight(
  scope: Scope,
  machine: (name: string) => Scoped | undefined,
): ((entry: JournalEntry) => boolean) | null {
  if (scope.whole('admin')) return null;
  return (e) => journalSeen(scope, e, machine);
}
