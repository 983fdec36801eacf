import { join } from 'node:path';
import { Value } from 'typebox/value';
import type { QueueOp } from '../domain/action-queue.js';
import { JournalEntry } from '../schemas.js';
import { AppendLog, type LogContents } from './append-log.js';
import type { StoreHealth } from './store-health.js';

function parseJournalEntry(value: unknown): JournalEntry | null {
  return Value.Check(JournalEntry, value) ? value : null;
}

function parseQueueOp(value: unknown): QueueOp | null {
  if (value === null || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if ((v.op === 'remove' || v.op === 'delivered') && typeof v.id === 'string') return v as QueueOp;
  const a = v.action as Record<string, unknown> | undefined;
  if (
    v.op === 'add' &&
    a !== undefined &&
    typeof a.id === 'string' &&
    typeof a.name === 'string' &&
    typeof a.what === 'string' &&
    (a.action === 'start' || a.action === 'stop') &&
    typeof a.requestedAt === 'number'
  ) {
    return v as QueueOp;
  }
  return null;
}

/** Opens the journal and the action queue logs under the data directory. */
export async function openLogs(
  dataDir: string,
  health: StoreHealth | null = null,
): Promise<{
  journal: { log: AppendLog<JournalEntry>; contents: LogContents<JournalEntry> };
  queue: { log: AppendLog<QueueOp>; contents: LogContents<QueueOp> };
}> {
  const journal = await AppendLog.open(join(dataDir, 'journal.jsonl'), parseJournalEntry, health);
  const queue = await AppendLog.open(join(dataDir, 'queue.jsonl'), parseQueueOp, health);
  return { journal, queue };
}
