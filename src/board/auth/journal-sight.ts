import type { JournalEntry } from '../schemas.js';
import type { Scope, Scoped } from './roles.js';

/** Entries about no machine: a scoped actor sees none of them. */
const FLEET_OPS = new Set(['notify', 'reload', 'auth']);

/**
 * Whether `scope` is shown `entry` (DESIGN 15: out of scope is absent): `auth` entries only to
 * an unscoped admin; entries about no machine (notify, reload, `*` summaries) only to an
 * unscoped viewer; the rest when the machine its target names is on the board and in sight.
 */
export function journalSeen(
  scope: Scope,
  entry: JournalEntry,
  machine: (name: string) => Scoped | undefined,
): boolean {
  if (entry.op === 'auth') return scope.whole('admin');
  if (scope.whole('viewer')) return true;
  if (FLEET_OPS.has(entry.op)) return false;
  const slash = entry.target.indexOf('/');
  const m = machine(slash < 0 ? entry.target : entry.target.slice(0, slash));
  return m !== undefined && scope.sees(m);
}
