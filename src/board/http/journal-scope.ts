import type { Scope, Scoped } from '../auth/roles.js';
import type { Journal } from '../domain/journal.js';
import type { JournalEntry } from '../schemas.js';

/** Entries about no machine: a scoped actor sees none of them. */
const FLEET_OPS = new Set(['notify', 'reload', 'auth']);
/** How many pages a scoped actor's journal reads at most to fill its limit (a bounded cost). */
const MAX_PAGES = 8;

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

/** The newest `limit` entries `scope` is shown (the journal read page by page, bounded). */
export async function scopedJournal(
  journal: Pick<Journal, 'served'>,
  scope: Scope,
  limit: number,
  machine: (name: string) => Scoped | undefined,
): Promise<JournalEntry[]> {
  if (scope.whole('admin')) return journal.served(limit);
  const shown: JournalEntry[] = [];
  let before: { at: string; id: number } | undefined;
  for (let page = 0; page < MAX_PAGES && shown.length < limit; page += 1) {
    const entries = await journal.served(limit, before);
    for (const e of entries) {
      if (shown.length < limit && journalSeen(scope, e, machine)) shown.push(e);
    }
    const last = entries.at(-1);
    if (entries.length < limit || last === undefined) break;
    before = { at: last.at, id: last.id };
  }
  return shown;
}
