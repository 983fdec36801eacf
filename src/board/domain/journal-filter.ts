import type { ActorKind, ActorRef, JournalEntry } from '../schemas.js';
import type { Journal, JournalKey } from './journal.js';

/** The journal's actor kinds, as `?actor=` names them. */
export const ACTOR_KINDS: readonly ActorKind[] = [
  'person',
  'token',
  'board_token',
  'machine',
  'mcp',
  'anonymous',
];

/** Entries read from the journal at a time while looking for those a filter keeps. */
const SCAN_PAGE = 500;

/**
 * `?actor=` read: `kind:name` (that actor) or `kind` (every actor of that kind); a string
 * naming what is wrong when it is neither.
 */
export function actorFilter(text: string): ((actor: ActorRef) => boolean) | string {
  const colon = text.indexOf(':');
  const kind = colon < 0 ? text : text.slice(0, colon);
  if (!(ACTOR_KINDS as readonly string[]).includes(kind))
    return `actor: '<kind>:<name>' or '<kind>', the kind one of ${ACTOR_KINDS.join(', ')}`;
  if (colon < 0) return (a) => a.kind === kind;
  const name = text.slice(colon + 1);
  return (a) => a.kind === kind && a.name === name;
}

/**
 * The most recent `limit` entries that `keep` keeps (older than `before`), newest first: the
 * journal read a page at a time, so that a filter still fills its page (the journal is bounded).
 */
export async function servedWhere(
  journal: Pick<Journal, 'served'>,
  limit: number,
  keep: (entry: JournalEntry) => boolean,
  before?: JournalKey,
): Promise<JournalEntry[]> {
  const kept: JournalEntry[] = [];
  let cursor = before;
  for (;;) {
    const rows = await journal.served(SCAN_PAGE, cursor);
    for (const e of rows) {
      if (!keep(e)) continue;
      kept.push(e);
      if (kept.length >= limit) return kept;
    }
    const last = rows.at(-1);
    if (rows.length < SCAN_PAGE || last === undefined) return kept;
    // A page that does not move on (an entry older than its own cursor) ends the scan.
    if (cursor !== undefined && last.id === cursor.id && last.at === cursor.at) return kept;
    cursor = { at: last.at, id: last.id };
  }
}
