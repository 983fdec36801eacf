import type { Selector } from '../../shared/selector.js';
import type { Board } from '../domain/board.js';
import type { Inbox, SessionKey, SessionRow, SessionState } from '../domain/inbox.js';
import { sessionKey } from '../domain/inbox.js';
import type { JournalKey } from '../domain/journal.js';
import { servedWhere } from '../domain/journal-filter.js';
import type { Machine } from '../domain/machine.js';
import type { JournalEntry } from '../schemas.js';
import { MCP_LIMITS } from './mcp-limits.js';
import { machineItem } from './mcp-machine.js';

/** A cursor the client could not have had from this tool. */
export class CursorError extends Error {}

/** A cursor: the key of the last item given, as opaque text (base64url of JSON). */
function encode(kind: string, key: unknown[]): string {
  return Buffer.from(JSON.stringify([kind, ...key]), 'utf8').toString('base64url');
}

function decode(kind: string, cursor: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || parsed[0] !== kind) {
    throw new CursorError('cursor: not a next_cursor this tool gave');
  }
  return parsed.slice(1);
}

const isText = (v: unknown): v is string => typeof v === 'string';

/**
 * The first items that fit the page: at most `limit` and PAGE_ITEMS_MAX of them and
 * PAGE_BYTES_MAX bytes of their JSON (always one, so that a cursor moves on).
 */
function pageOf<T>(items: readonly T[], limit: number, json: (item: T) => unknown): unknown[] {
  const page: unknown[] = [];
  let bytes = 0;
  const most = Math.min(limit, MCP_LIMITS.PAGE_ITEMS_MAX);
  for (const item of items) {
    if (page.length >= most) break;
    const value = json(item);
    bytes += Buffer.byteLength(JSON.stringify(value)) + 1;
    if (page.length > 0 && bytes > MCP_LIMITS.PAGE_BYTES_MAX) break;
    page.push(value);
  }
  return page;
}

const byName = (a: Machine, b: Machine): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** list_machines: every machine's state counted, and a page of them by name after `cursor`. */
export function machinePage(
  board: Board,
  limit: number,
  cursor: string | undefined,
  selector: Selector | null = null,
  sees: (m: Machine) => boolean = () => true,
): Record<string, unknown> {
  let after: string | null = null;
  if (cursor !== undefined) {
    const [name] = decode('m', cursor);
    if (!isText(name)) throw new CursorError('cursor: not a next_cursor this tool gave');
    after = name;
  }
  const counts = { total: 0, up: 0, down: 0, late: 0, attention: 0, queued: 0 };
  const rest: Machine[] = [];
  for (const m of board.registry.all()) {
    // Out of the caller's sight: absent, not even counted.
    if (!sees(m) || (selector !== null && !selector.matches(m.labels, m.name))) continue;
    counts.total += 1;
    if (m.state === 'up') counts.up += 1;
    else counts.down += 1;
    if (m.late) counts.late += 1;
    if ((m.metrics?.bells ?? 0) > 0) counts.attention += 1;
    counts.queued += m.queued;
    if (after === null || m.name > after) rest.push(m);
  }
  rest.sort(byName);
  const machines = pageOf(rest, limit, machineItem);
  const last = rest[machines.length - 1];
  const more = machines.length < rest.length && last !== undefined;
  return { ...counts, machines, ...(more ? { next_cursor: encode('m', [last.name]) } : {}) };
}

/** list_sessions: a page of the inbox after `cursor`, and how many match in all. */
export function sessionPage(
  inbox: Inbox,
  state: SessionState,
  limit: number,
  cursor: string | undefined,
  sees: (m: Machine) => boolean = () => true,
): Record<string, unknown> {
  let after: SessionKey | null = null;
  if (cursor !== undefined) {
    const [open, at, machine, session] = decode('s', cursor);
    if (typeof open !== 'boolean' || !isText(at) || !isText(machine) || !isText(session)) {
      throw new CursorError('cursor: not a next_cursor this tool gave');
    }
    after = { open, at, machine, session };
  }
  // One more than the page can hold: whether more follow.
  const most = Math.min(limit, MCP_LIMITS.PAGE_ITEMS_MAX);
  const { sessions: rows, total } = inbox.list(state, most + 1, after, sees);
  const sessions = pageOf(rows, most, (row) => row) as SessionRow[];
  const last = sessions.at(-1);
  const more = sessions.length < rows.length && last !== undefined;
  const key = last === undefined ? null : sessionKey(last);
  return {
    sessions,
    total,
    ...(more && key !== null
      ? { next_cursor: encode('s', [key.open, key.at, key.machine, key.session]) }
      : {}),
  };
}

/** read_journal: a page of entries older than `cursor`, most recent first. */
export async function journalPage(
  board: Board,
  limit: number,
  cursor: string | undefined,
  keep: ((entry: JournalEntry) => boolean) | null = null,
): Promise<Record<string, unknown>> {
  let before: JournalKey | undefined;
  if (cursor !== undefined) {
    const [at, id] = decode('j', cursor);
    if (!isText(at) || typeof id !== 'number' || !Number.isSafeInteger(id)) {
      throw new CursorError('cursor: not a next_cursor this tool gave');
    }
    before = { at, id };
  }
  const most = Math.min(limit, MCP_LIMITS.PAGE_ITEMS_MAX);
  const rows =
    keep === null
      ? await board.journal.served(most + 1, before)
      : await servedWhere(board.journal, most + 1, keep, before);
  const entries = pageOf(rows, most, (e) => e) as JournalEntry[];
  const last = entries.at(-1);
  const more = entries.length < rows.length && last !== undefined;
  return { entries, ...(more ? { next_cursor: encode('j', [last.at, last.id]) } : {}) };
}
