import type { SessionMark } from '../domain/metrics.js';

/**
 * What a machine keeps of a new overview, with the parts equal by value to what it kept from the
 * one before taken from that one. Each report of an announced machine replaces what
 * the board keeps of it; what it keeps lives until the machine's next report, seconds later, so
 * each new copy outlives the young generation and is promoted: at 1,500 reports a second that
 * was ~1.3 KB and 25 objects a report on the heap (heap snapshots), and the copying and
 * promoting set the scavenges' pauses that set the TLS row's p99. Most of it repeats from one
 * report to the next: the same sessions. (The numbers are written in place: metric-numbers.ts.)
 *
 * Nothing kept is changed in place: a part is either the previous one, whole, or the new one
 * (whose strings equal to the previous one's may be the previous one's: the new parts are the
 * caller's own, not yet shared).
 */
export function keptSessions(
  previous: readonly SessionMark[],
  next: readonly SessionMark[],
): readonly SessionMark[] {
  let same = previous.length === next.length;
  for (let i = 0; i < next.length; i++) {
    const a = previous[i];
    const b = next[i] as SessionMark;
    if (a === undefined) {
      same = false;
      continue;
    }
    // Equal text: the new session may hold the previous string (its own dies young). A bell
    // rung anew (only its time moved) then keeps no new copy of its text.
    if (a.session === b.session) b.session = a.session;
    else same = false;
    if (a.why === b.why) b.why = a.why;
    else same = false;
    if (a.text === b.text) b.text = a.text;
    else same = false;
    if (a.at !== b.at) same = false;
  }
  return same ? previous : next;
}
