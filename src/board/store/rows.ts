import type { ActionName } from '../../shared/wire/common.js';
import type { QueuedAction } from '../domain/action-queue.js';
import { actorOfWord } from '../domain/who.js';
import type { Pending } from '../notify/ports.js';
import type { JournalEntry } from '../schemas.js';

/** A journal row as either engine reads it back (PostgreSQL's BIGINT comes as a string). */
export interface JournalRow {
  id: number | string;
  at: string;
  who: string;
  op: string;
  target: string;
  outcome: string;
  status: number | null;
  detail: string;
  board?: string | null;
  /** JSON `{kind, name}`; null in rows written before actors were kept. */
  actor?: string | null;
}

/** A journal entry from its row (`board` only where one was written). */
export function fromJournalRow(r: JournalRow): JournalEntry {
  return {
    id: Number(r.id),
    at: r.at,
    who: r.who as JournalEntry['who'],
    actor: readActor(r.actor, r.who as JournalEntry['who'], r.target),
    op: r.op,
    target: r.target,
    outcome: r.outcome,
    status: r.status,
    detail: r.detail,
    ...(typeof r.board === 'string' ? { board: r.board } : {}),
  };
}

/** The stored actor, or (an older row) what its `who` says. */
function readActor(
  text: string | null | undefined,
  who: JournalEntry['who'],
  target: string,
): JournalEntry['actor'] {
  if (typeof text === 'string') {
    try {
      const parsed = JSON.parse(text) as JournalEntry['actor'];
      if (typeof parsed?.kind === 'string' && typeof parsed.name === 'string') return parsed;
    } catch {
      // An unreadable actor is read as the word says.
    }
  }
  return actorOfWord(who, target);
}

/** The actor as a journal row keeps it. */
export function actorText(entry: JournalEntry): string {
  return JSON.stringify({ kind: entry.actor.kind, name: entry.actor.name });
}

/** A queue row as either engine reads it back. */
export interface QueueRow {
  id: string;
  name: string;
  what: string;
  action: string;
  requested_at: number | string;
  delivered: number;
}

export function fromQueueRow(r: QueueRow): QueuedAction {
  return {
    id: r.id,
    name: r.name,
    what: r.what,
    action: r.action as ActionName,
    requestedAt: Number(r.requested_at),
    delivered: r.delivered === 1,
  };
}

/** A kept delivery, if `value` is one (checked: it was written by an earlier version too). */
export function pendingOf(value: unknown): Pending[] {
  if (value === null || typeof value !== 'object') return [];
  const v = value as { channel?: unknown; message?: unknown };
  const m = v.message as { title?: unknown; text?: unknown; events?: unknown } | null | undefined;
  const ok =
    typeof v.channel === 'string' &&
    m !== undefined &&
    m !== null &&
    typeof m.title === 'string' &&
    typeof m.text === 'string' &&
    Array.isArray(m.events);
  return ok ? [value as Pending] : [];
}
