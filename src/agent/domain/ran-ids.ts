import type { HandedResult } from '../../shared/wire/action.js';

/** What is known of an action id: started (outcome unknown, the agent stopped) or its result. */
export type RanEntry =
  | { id: string; state: 'started' }
  | { id: string; state: 'done'; result: HandedResult };

/** The durable memory of handed action ids, so that a re-delivered id never runs twice. */
export interface RanStore {
  get(id: string): RanEntry | undefined;
  /** Durably records that `id` is about to run; resolves once it is on disk. */
  markStarted(id: string): Promise<void>;
  /** Durably records the result of `id`; resolves once it is on disk. */
  record(result: HandedResult): Promise<void>;
}

/** How many ids are remembered; older ones are forgotten first. */
export const RAN_IDS_MAX = 10_000;

/** The characters of output kept with a remembered result. */
export const RAN_OUTPUT_MAX = 1000;

/** The result an id gets when the agent stopped while running it. */
export function interruptedResult(id: string): HandedResult {
  return {
    id,
    status: 500,
    body: {
      detail:
        'the agent stopped while this action ran; its outcome is unknown and it was not repeated',
    },
  };
}

/** Parses one line of the ran-ids file; null for a line that is not a whole record (torn write). */
export function parseRanLine(line: string): RanEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string' || v.id === '') return null;
  if (v.started === true) return { id: v.id, state: 'started' };
  if (typeof v.status === 'number' && 'body' in v) {
    return { id: v.id, state: 'done', result: { id: v.id, status: v.status, body: v.body } };
  }
  return null;
}

/** The line that records an entry. */
export function ranLine(entry: RanEntry): string {
  const record =
    entry.state === 'started'
      ? { id: entry.id, started: true }
      : { id: entry.id, status: entry.result.status, body: entry.result.body };
  return `${JSON.stringify(record)}\n`;
}
