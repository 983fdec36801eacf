import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../../shared/logger.js';
import { Type, Value } from '../../../shared/typebox.js';
import type { QueuedAction } from '../../domain/action-queue.js';
import { actorOfWord } from '../../domain/who.js';
import { JournalEntry } from '../../schemas.js';
import { pendingOf } from '../rows.js';
import type { BoardStore, Imported, SilenceRecord, StoredIdentity } from '../state.js';

const LegacyEntry = Type.Omit(JournalEntry, ['actor']);

/** The files a board of 0.1.0 before the store kept in its data directory. */
export const LEGACY_FILES = [
  'journal.jsonl',
  'queue.jsonl',
  'announced.json',
  'silences.json',
  'notify-pending.json',
] as const;

/** What the import did, for the log line and the tests. */
export interface ImportReport {
  journal: number;
  queue: number;
  identities: number;
  silences: number;
  deliveries: number;
  /** Lines that did not parse (a torn last write), skipped. */
  skipped: number;
  /** The files renamed, each to `<name>.imported`. */
  renamed: string[];
}

/**
 * Imports a data directory written by an earlier board, once, at start: the journal, the queue
 * (its ids and delivered flags, replayed from its log), announced identities, silences and the
 * notifications pending at its last stop go into the store in one transaction; then each file
 * is renamed to `<name>.imported` (never deleted), so the next start does not import it again.
 * `history.db` needs no import: the embedded engine uses it as it is. Returns null when there
 * was nothing to import. A crash between the commit and the renames imports again at the next
 * start, harmlessly: rows already present are kept (ids), not doubled.
 */
export async function importLegacy(
  dataDir: string,
  store: BoardStore,
  logger: Logger,
): Promise<ImportReport | null> {
  const present = LEGACY_FILES.filter((f) => existsSync(join(dataDir, f)));
  if (present.length === 0) return null;
  let skipped = 0;
  const lines = (file: string): unknown[] => {
    const path = join(dataDir, file);
    if (!existsSync(path)) return [];
    const out: unknown[] = [];
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        skipped += 1;
      }
    }
    return out;
  };
  const json = (file: string): unknown[] => {
    const path = join(dataDir, file);
    if (!existsSync(path)) return [];
    try {
      const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
      return Array.isArray(value) ? value : [];
    } catch {
      skipped += 1;
      return [];
    }
  };
  // Entries of that version name no actor: it is read from their `who`.
  const journal = lines('journal.jsonl')
    .filter((v): v is Omit<JournalEntry, 'actor'> => Value.Check(LegacyEntry, v))
    .map((e): JournalEntry => ({ ...e, actor: actorOfWord(e.who, e.target) }));
  const data: Imported = {
    journal: [...new Map(journal.map((e) => [e.id, e])).values()],
    queue: replayQueue(lines('queue.jsonl')),
    identities: json('announced.json').flatMap(identityOf),
    silences: json('silences.json').flatMap(silenceOf),
    deliveries: json('notify-pending.json').flatMap(pendingOf),
  };
  await store.importAll(data);
  for (const file of present) renameSync(join(dataDir, file), join(dataDir, `${file}.imported`));
  syncDir(dataDir);
  const report: ImportReport = {
    journal: data.journal.length,
    queue: data.queue.length,
    identities: data.identities.length,
    silences: data.silences.length,
    deliveries: data.deliveries.length,
    skipped,
    renamed: present.map((f) => `${f}.imported`),
  };
  logger.info(
    { ...report, renamed: undefined, files: present },
    `imported the data directory of an earlier version into the store (${store.engine}); the old files are kept as *.imported`,
  );
  return report;
}

/** The queue as its log left it: adds, delivered flags and removals replayed in order. */
function replayQueue(ops: unknown[]): QueuedAction[] {
  const actions = new Map<string, QueuedAction>();
  for (const value of ops) {
    const op = value as { op?: unknown; id?: unknown; action?: unknown };
    if (op.op === 'add') {
      const a = op.action as Partial<QueuedAction> | null;
      if (
        a === null ||
        typeof a !== 'object' ||
        typeof a.id !== 'string' ||
        typeof a.name !== 'string' ||
        typeof a.what !== 'string' ||
        (a.action !== 'start' && a.action !== 'stop') ||
        typeof a.requestedAt !== 'number'
      )
        continue;
      actions.delete(a.id);
      actions.set(a.id, {
        id: a.id,
        name: a.name,
        what: a.what,
        action: a.action,
        requestedAt: a.requestedAt,
        delivered: a.delivered === true,
      });
    } else if (op.op === 'delivered' && typeof op.id === 'string') {
      const a = actions.get(op.id);
      if (a !== undefined) a.delivered = true;
    } else if (op.op === 'remove' && typeof op.id === 'string') {
      actions.delete(op.id);
    }
  }
  return [...actions.values()];
}

function identityOf(v: unknown): StoredIdentity[] {
  const i = v as Partial<StoredIdentity> | null;
  if (
    i === null ||
    typeof i !== 'object' ||
    typeof i.name !== 'string' ||
    typeof i.location !== 'string' ||
    typeof i.first_seen !== 'number' ||
    (i.last_seen !== null && typeof i.last_seen !== 'number')
  )
    return [];
  return [
    {
      name: i.name,
      location: i.location,
      first_seen: i.first_seen,
      last_seen: i.last_seen ?? null,
      verified: false,
      key_proof_at: null,
    },
  ];
}

function silenceOf(v: unknown): SilenceRecord[] {
  const s = v as Partial<SilenceRecord> | null;
  if (
    s === null ||
    typeof s !== 'object' ||
    typeof s.name !== 'string' ||
    typeof s.until !== 'number' ||
    typeof s.reason !== 'string'
  )
    return [];
  return [{ name: s.name, until: s.until, reason: s.reason }];
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
