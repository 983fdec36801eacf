import { NO_LABELS } from '../../shared/labels.js';
import { agentRecord } from '../domain/agent-self.js';
import { type Machine, silencedUntilText } from '../domain/machine.js';

// A machine's slot (Machine.slot) as bytes: its record's head, its overview, a closing brace.

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

/** Room before the overview for the record's head (~280 bytes without labels; more when it needs more). */
const HEAD_ROOM = 384;

/**
 * Keeps `json` as the machine's overview: written in place into the machine's slot when it
 * fits, so that a report or a poll costs no new buffer (a flood of 15,000 reports a second
 * left ~20 MB/s of old buffers for the next full collection); a new slot, with some
 * room to grow, when it does not. The record in the slot is stale from now on.
 */
export function keepOverview(m: Machine, json: string | Uint8Array): void {
  const length = typeof json === 'string' ? Buffer.byteLength(json) : json.byteLength;
  const slot = room(m, m.headRoom || HEAD_ROOM + labelsRoom(m), length);
  if (typeof json === 'string') slot.write(json, m.headRoom);
  else slot.set(json, m.headRoom);
  m.overviewLength = length;
  m.bytes = null;
}

/**
 * What the record's head needs beyond HEAD_ROOM for the machine's labels: without it each
 * labelled machine's first slot is given up at its first record, and 10,000 freed slots stay in
 * the process's memory (the allocator keeps them).
 */
function labelsRoom(m: Machine): number {
  if (m.labels === NO_LABELS) return 0;
  let room = 0;
  for (const [key, value] of Object.entries(m.labels)) room += key.length + value.length + 6;
  for (const key of Object.keys(m.boardLabels)) room += key.length + 3;
  return room;
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
    const head = `${recordHead(m).slice(0, -1)}${containerAlerts(m)}${inboxParts(m)},"overview":`;
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

/** `,"container_alerts":[…]` for a machine with some (name and problem of each), else nothing. */
function containerAlerts(m: Machine): string {
  if (m.containerAlerts.length === 0) return '';
  const alerts = m.containerAlerts.map((a) => ({ name: a.name, problem: a.problem }));
  return `,"container_alerts":${JSON.stringify(alerts)}`;
}

/**
 * `,"acknowledged":[…]` (each acknowledged session and the `at` of the bell acknowledged) and
 * `,"held_sessions":[…]` (open sessions its overview no longer lists) when it has some.
 */
function inboxParts(m: Machine): string {
  let out = '';
  if (m.acks !== null && m.acks.size > 0) {
    const acks = [...m.acks].map(([session, ack]) => ({ session, at: ack.bellAt }));
    out += `,"acknowledged":${JSON.stringify(acks)}`;
  }
  if (m.heldSessions.length > 0) {
    const held = m.heldSessions.map((s) => ({
      session: s.session,
      why: s.why,
      text: s.text,
      at: s.at,
    }));
    out += `,"held_sessions":${JSON.stringify(held)}`;
  }
  return out;
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
    silenced_until: silencedUntilText(m),
    agent: agentRecord(m),
    labels: m.labels,
    board_labels: Object.keys(m.boardLabels),
  });
  return head;
}
