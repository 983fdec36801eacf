import { BELL_SESSIONS_MAX, type Bell, type SessionView } from '../../shared/wire/overview.js';
import type { Clock } from './clock.js';

/** Where the latest bells are kept across restarts (io/bell-file.ts). */
export interface BellStore {
  /** Replaces what is kept with these bells, oldest first. */
  save(sessions: readonly SessionView[]): Promise<void>;
}

/**
 * The latest bell of each session, in memory and, given a store, kept there after each ring. At
 * most `maxSessions` sessions are kept; a new session beyond that evicts the one that rang least
 * recently.
 */
export class Bells {
  // A Map iterates in insertion order; re-inserting on every ring keeps it oldest-first.
  private readonly latest = new Map<string, SessionView>();
  /** The save under way, and whether another must follow it (rings came meanwhile). */
  private saving: Promise<void> | null = null;
  private dirty = false;

  constructor(
    private readonly clock: Clock,
    private readonly maxSessions = BELL_SESSIONS_MAX,
    private readonly store: BellStore | null = null,
    kept: readonly SessionView[] = [],
    /** Hears of a save that failed (the bells stay in memory). */
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    for (const view of kept) this.keep(view);
  }

  ring(bell: Bell): SessionView {
    const view: SessionView = {
      session: bell.session,
      why: bell.why,
      text: bell.text,
      at: new Date(this.clock.now()).toISOString(),
    };
    this.keep(view);
    this.dirty = true;
    return view;
  }

  /** Resolves once the bells rung so far are in the store (at once without one). */
  async kept(): Promise<void> {
    if (this.store === null) return;
    while (this.dirty || this.saving !== null) {
      if (this.saving === null) {
        this.dirty = false;
        const sessions = [...this.latest.values()];
        this.saving = this.store
          .save(sessions)
          .catch(this.onError)
          .finally(() => {
            this.saving = null;
          });
      }
      await this.saving;
    }
  }

  /** The sessions, the most recent bell first. */
  sessions(): SessionView[] {
    return [...this.latest.values()].reverse();
  }

  private keep(view: SessionView): void {
    this.latest.delete(view.session);
    this.latest.set(view.session, view);
    while (this.latest.size > this.maxSessions) {
      const oldest = this.latest.keys().next();
      if (oldest.done) break;
      this.latest.delete(oldest.value);
    }
  }
}
