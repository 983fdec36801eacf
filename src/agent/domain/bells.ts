import { BELL_SESSIONS_MAX, type Bell, type SessionView } from '../../shared/wire/overview.js';
import type { Clock } from './clock.js';

/**
 * The latest bell of each session, in memory. At most `maxSessions` sessions are kept; a new
 * session beyond that evicts the one that rang least recently.
 */
export class Bells {
  // A Map iterates in insertion order; re-inserting on every ring keeps it oldest-first.
  private readonly latest = new Map<string, SessionView>();

  constructor(
    private readonly clock: Clock,
    private readonly maxSessions = BELL_SESSIONS_MAX,
  ) {}

  ring(bell: Bell): SessionView {
    const view: SessionView = {
      session: bell.session,
      why: bell.why,
      text: bell.text,
      at: new Date(this.clock.now()).toISOString(),
    };
    this.latest.delete(bell.session);
    this.latest.set(bell.session, view);
    while (this.latest.size > this.maxSessions) {
      const oldest = this.latest.keys().next();
      if (oldest.done) break;
      this.latest.delete(oldest.value);
    }
    return view;
  }

  /** The sessions, the most recent bell first. */
  sessions(): SessionView[] {
    return [...this.latest.values()].reverse();
  }
}
