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
   * The last overview, as UTF-8 JSON outside the JS heap: 10,000 overviews kept as parsed
   * objects (or as strings) are garbage for the GC to trace and promote, sweep after sweep.
   */
  overviewBytes: Buffer | null;
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
   * The machine's record as UTF-8 JSON, made when first asked for after a change (the view's
   * rebuild, the live feed's flush), not per report: null while stale.
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

const NULL = Buffer.from('null');
const CLOSE_BRACE = 0x7d; // }

/**
 * `text` as UTF-8 in a buffer of its own. Buffer.from would cut small ones from a shared 8 KiB
 * slab, which any one kept slice then keeps alive whole: 10,000 kept records held ~8 KiB each.
 */
export function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/** The machine's record as GET /api/board lists it, as UTF-8 JSON (made once per change). */
export function recordBytes(m: Machine): Buffer {
  if (m.bytes === null) {
    const head = `${recordHead(m).slice(0, -1)},"overview":`;
    const headLength = Buffer.byteLength(head);
    const overview = m.overviewBytes ?? NULL;
    // One buffer of its own (see ownBytes), written in place: no intermediate copy of the head.
    const bytes = Buffer.allocUnsafeSlow(headLength + overview.length + 1);
    bytes.write(head, 0);
    overview.copy(bytes, headLength);
    bytes[headLength + overview.length] = CLOSE_BRACE;
    m.bytes = bytes;
    // The overview is kept once: as the part of the record that holds it (~1.3 KB a machine).
    if (m.overviewBytes !== null)
      m.overviewBytes = bytes.subarray(headLength, headLength + overview.length);
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
