import type { MachineMetrics, SessionMark } from './metrics.js';

export type Origin = 'configured' | 'announced';

/** What the board knows of one machine. */
export interface Machine {
  name: string;
  origin: Origin;
  location: string;
  state: 'up' | 'down';
  /** ms since the epoch of the last good poll or report; null if never. */
  lastSeen: number | null;
  firstSeen: number;
  error: string | null;
  /**
   * The machine's memory outside the JS heap (see keepOverview): its record's head, written
   * right before `headRoom`, then its last overview as UTF-8 JSON from `headRoom` on, then the
   * record's closing brace; written in place while the new overview fits. 10,000 overviews kept
   * as parsed objects (or as strings) are garbage for the GC to trace and promote, and a new
   * buffer per report (issue 26) is memory given back only at the next full collection.
   */
  slot: Buffer | null;
  headRoom: number;
  /** The length of the last overview in `slot` (bytes); 0: none yet. */
  overviewLength: number;
  /** The numbers taken from the last overview (null until one arrived). */
  metrics: MachineMetrics | null;
  /** Whether the board has observed it (a poll or a report) since it started. */
  observed: boolean;
  /** announced: the interval the machine says it reports at (ms), null if it does not say. */
  intervalMs: number | null;
  /** announced: no report for twice its interval, still up (amber). */
  late: boolean;
  /** announced: its latest report proved the key the board holds for it. */
  verified: boolean;
  /** ms since the epoch until which notifications for it are silenced; null if not. */
  silencedUntil: number | null;
  /** The board that last polled it or took its report (board_id), or null: not yet. */
  board: string | null;
  /** The newest bell time (ISO text, as the agent sent it) already seen. */
  lastBellAt: string | null;
  /** The sessions of its last overview (shared with other boards with its record). */
  sessions: readonly SessionMark[];
  queued: number;
  /**
   * The machine's record as UTF-8 JSON (a part of `slot`), made when first asked for after a
   * change (the view's rebuild, the live feed's flush), not per report: null while stale. Its
   * bytes are written over by the next change: read it before the next turn of the event loop.
   */
  bytes: Buffer | null;
}

/** What is read out of an overview once (possibly off the main thread, by the poller). */
export interface PreparedOverview {
  /**
   * The overview as JSON text, or as its UTF-8 bytes in a buffer of their own (the poller
   * sends bytes, moved across threads without a copy, so the board encodes nothing).
   */
  json: string | Uint8Array;
  metrics: MachineMetrics;
  sessions: SessionMark[];
}

/** One poll's or one report's outcome: the single input of `observe`. */
export type Observation =
  | {
      ok: true;
      /** The overview, as parsed; absent when `prepared` carries what the board keeps of it. */
      overview?: Record<string, unknown>;
      prepared?: PreparedOverview;
      /** The overview's JSON text as received, when it is exactly the overview (a poll). */
      json?: string;
      /** `json` as UTF-8 in a buffer of its own, when the poll received exactly those bytes. */
      jsonBytes?: Buffer;
      location?: string;
      /** configured: the poll's round trip. */
      latencyMs?: number;
      /** announced: the report interval it states. */
      intervalMs?: number | null;
      /** announced: whether the report proved the board's key for it. */
      verified?: boolean;
    }
  | { ok: false; error: string };

/** No sessions: one list shared by every machine without them. */
export const NO_SESSIONS: readonly SessionMark[] = Object.freeze([]);

/** A machine as the board first lists it: not observed yet, no overview. */
export function newMachine(init: {
  name: string;
  origin: Origin;
  location: string;
  firstSeen: number;
}): Machine {
  // One object literal with every field (no spread): all machines share one hidden class,
  // which keeps the loops over 10,000 of them fast (the spread made them 10x slower).
  return {
    name: init.name,
    origin: init.origin,
    location: init.location,
    firstSeen: init.firstSeen,
    state: 'down',
    lastSeen: null,
    error: init.origin === 'configured' ? 'not polled yet' : null,
    slot: null,
    headRoom: 0,
    overviewLength: 0,
    metrics: null,
    observed: false,
    intervalMs: null,
    late: false,
    verified: false,
    silencedUntil: null,
    board: null,
    lastBellAt: null,
    sessions: NO_SESSIONS,
    queued: 0,
    bytes: null,
  };
}

const NULL = Buffer.from('null');
const CLOSE_BRACE = 0x7d; // }

/**
 * `text` as UTF-8 in a buffer of its own, which the poller can move to the main thread (a
 * small `Buffer.from` is cut from Node's shared 8 KiB pool, which Node marks as not to be moved).
 */
export function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/** Room before the overview for the record's head (~250 bytes; more when it needs more). */
const HEAD_ROOM = 320;

/**
 * Keeps `json` as the machine's overview: written in place into the machine's slot when it
 * fits, so that a report or a poll costs no new buffer (a flood of 15,000 reports a second
 * left ~20 MB/s of old buffers for the next full collection, issue 26); a new slot, with some
 * room to grow, when it does not. The record in the slot is stale from now on.
 */
export function keepOverview(m: Machine, json: string | Uint8Array): void {
  const length = typeof json === 'string' ? Buffer.byteLength(json) : json.byteLength;
  const slot = room(m, m.headRoom || HEAD_ROOM, length);
  if (typeof json === 'string') slot.write(json, m.headRoom);
  else slot.set(json, m.headRoom);
  m.overviewLength = length;
  m.bytes = null;
}

/** The machine's last overview as UTF-8 JSON (a view of its slot), or null: none yet. */
export function overviewOf(m: Machine): Buffer | null {
  if (m.slot === null || m.overviewLength === 0) return null;
  return m.slot.subarray(m.headRoom, m.headRoom + m.overviewLength);
}

/**
 * The machine's slot, with at least `headRoom` bytes before the overview and room for an
 * overview of `length` bytes and the closing brace after it: the slot it has when they fit,
 * else a new one (with some room to grow) holding the overview it has.
 */
function room(m: Machine, headRoom: number, length: number): Buffer {
  const slot = m.slot;
  if (slot !== null && headRoom <= m.headRoom && m.headRoom + length + 1 <= slot.length)
    return slot;
  const grown = Math.max(headRoom, m.headRoom);
  const next = Buffer.allocUnsafeSlow(grown + length + (length >>> 3) + 64 + 1);
  if (slot !== null && m.overviewLength > 0)
    slot.copy(next, grown, m.headRoom, m.headRoom + m.overviewLength);
  m.slot = next;
  m.headRoom = grown;
  return next;
}

/**
 * The machine's record as GET /api/board lists it, as UTF-8 JSON, made once per change in its
 * slot: the head written right before the overview, so the overview is never copied.
 */
export function recordBytes(m: Machine): Buffer {
  if (m.bytes === null) {
    const head = `${recordHead(m).slice(0, -1)},"overview":`;
    const headLength = Buffer.byteLength(head);
    const overviewLength = m.overviewLength === 0 ? NULL.length : m.overviewLength;
    const slot = room(m, headLength > m.headRoom ? headLength + 64 : m.headRoom, overviewLength);
    if (m.overviewLength === 0) NULL.copy(slot, m.headRoom);
    const start = m.headRoom - headLength;
    slot.write(head, start);
    slot[m.headRoom + overviewLength] = CLOSE_BRACE;
    m.bytes = slot.subarray(start, m.headRoom + overviewLength + 1);
  }
  return m.bytes;
}

/** The machine's record without its overview, as JSON text. */
function recordHead(m: Machine): string {
  const head = JSON.stringify({
    name: m.name,
    origin: m.origin,
    state: m.state,
    late: m.late,
    ...(m.origin === 'announced' ? { verified: m.verified } : {}),
    location: m.location,
    board: m.board,
    last_seen: m.lastSeen === null ? null : new Date(m.lastSeen).toISOString(),
    error: m.error,
    queued: m.queued,
    silenced_until: m.silencedUntil === null ? null : new Date(m.silencedUntil).toISOString(),
  });
  return head;
}
