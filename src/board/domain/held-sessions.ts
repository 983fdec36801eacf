import { type Machine, NO_SESSIONS } from './machine.js';
import { SESSIONS_MAX, type SessionMark } from './metrics.js';

/** Whether a bell asks for a person. */
export function wantsPerson(why: string): boolean {
  return why === 'attention' || why === 'error';
}

/** Whether the machine's acknowledgements cover `mark` (it has not rung since). */
export function acknowledged(machine: Machine, mark: SessionMark): boolean {
  const ack = machine.acks?.get(mark.session);
  return ack !== undefined && mark.at <= ack.bellAt;
}

/**
 * The sessions to hold beside a new overview's `fresh` ones: those the machine listed (or held)
 * that wait for a person, nobody acknowledged, and `fresh` no longer lists. An agent restarted
 * or updated may come back without its bells; the inbox must not lose a waiting session. At
 * most SESSIONS_MAX, the newest.
 */
export function heldSessions(
  machine: Machine,
  fresh: readonly SessionMark[],
): readonly SessionMark[] {
  let listed: Set<string> | null = null;
  let held: SessionMark[] | null = null;
  const previous = machine.sessions;
  for (let i = 0; i < previous.length; i += 1) {
    const mark = previous[i] as SessionMark;
    if (!wantsPerson(mark.why) || acknowledged(machine, mark)) continue;
    // Most overviews list the sessions the last one did, in the same order: no set for those.
    if (fresh[i]?.session === mark.session) continue;
    listed ??= new Set(fresh.map((s) => s.session));
    if (listed.has(mark.session)) continue;
    held ??= [];
    held.push(mark);
  }
  if (held === null) return NO_SESSIONS;
  if (held.length > SESSIONS_MAX) {
    held.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
    held.length = SESSIONS_MAX;
  }
  return held;
}
