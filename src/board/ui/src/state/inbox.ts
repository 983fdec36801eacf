import type { Api } from '../api/client.js';
import type { InboxSession, Machine } from '../api/types.js';
import type { Subscribable } from '../hooks.js';

/** The open sessions the page reads and shows at most (the heading counts them all). */
export const INBOX_SHOWN = 50;
/** Live changes read the inbox again at most this often. */
const THROTTLE_MS = 2000;
/**
 * While sessions are open, the inbox is read again this often even without a change on the
 * live feed (a feed that missed something: an acknowledgement given through another board of
 * a cluster comes as a change of the machine's record, with its `acknowledged`).
 */
const RECHECK_MS = 30_000;

/** The open sessions of the fleet, as GET /api/sessions?state=open lists them. */
export interface InboxFeed extends Subscribable {
  readonly sessions: readonly InboxSession[];
  /** How many sessions are open in all (the tab title's number). */
  readonly total: number;
  /** Whether the inbox has been read once. */
  readonly loaded: boolean;
  /** Why the last read failed, or null. */
  readonly problem: unknown;
  /** Something that may change the inbox happened: it is read again (throttled). */
  changed(): void;
  /** Acknowledges a session: its row leaves once the board has kept it; rejects otherwise. */
  acknowledge(machine: string, session: string): Promise<void>;
  close(): void;
}

/** What of a machine the inbox depends on: its state and its bells waiting for a person. */
export function inboxKey(machine: Machine | undefined): string {
  if (machine === undefined) return '';
  return `${machine.state}\n${machine.attention.map((s) => `${s.session}\t${s.at}`).join('\n')}`;
}

const keyOf = (machine: string, session: string) => `${machine}\n${session}`;

export function createInboxFeed(api: Api): InboxFeed {
  let sessions: readonly InboxSession[] = [];
  let total = 0;
  let loaded = false;
  let problem: unknown = null;
  let version = 0;
  const listeners = new Set<() => void>();
  let closed = false;
  let reading = false;
  let readAgain = false;
  let lastRead = 0;
  let timer: number | undefined;
  /**
   * Sessions acknowledged here, by the bell time acknowledged: a read that started before the
   * board kept the ack must not bring the row back (a newer bell of the session does).
   */
  const acked = new Map<string, number | null>();

  const emit = () => {
    version += 1;
    for (const l of listeners) l();
  };

  /** The fetched sessions without those acknowledged here meanwhile. */
  const take = (fetched: readonly InboxSession[], fetchedTotal: number) => {
    const kept = fetched.filter((s) => {
      const key = keyOf(s.machine, s.session);
      return !acked.has(key) || acked.get(key) !== s.at;
    });
    sessions = kept;
    total = Math.max(kept.length, fetchedTotal - (fetched.length - kept.length));
  };

  const read = () => {
    timer = undefined;
    if (closed) return;
    if (reading) {
      readAgain = true;
      return;
    }
    reading = true;
    lastRead = Date.now();
    api
      .sessions('open', INBOX_SHOWN)
      .then(
        (page) => {
          if (closed) return;
          take(page.sessions, page.total);
          // What the board lists no longer needs holding back here.
          const listed = new Set(page.sessions.map((s) => keyOf(s.machine, s.session)));
          for (const key of [...acked.keys()]) if (!listed.has(key)) acked.delete(key);
          loaded = true;
          problem = null;
          emit();
        },
        (error: unknown) => {
          if (closed) return;
          problem = error;
          loaded = true;
          emit();
        },
      )
      .finally(() => {
        reading = false;
        if (readAgain) {
          readAgain = false;
          changed();
        }
      });
  };

  const changed = () => {
    if (closed || timer !== undefined) return;
    if (reading) {
      readAgain = true;
      return;
    }
    timer = window.setTimeout(read, Math.max(0, lastRead + THROTTLE_MS - Date.now()));
  };

  const recheck = window.setInterval(() => {
    if (total > 0) changed();
  }, RECHECK_MS);
  // The first read waits for the page's first view, which proves the token (changed()):
  // a wrong token must not cost one more refused request.

  return {
    get version() {
      return version;
    },
    get sessions() {
      return sessions;
    },
    get total() {
      return total;
    },
    get loaded() {
      return loaded;
    },
    get problem() {
      return problem;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    changed,
    async acknowledge(machine, session) {
      const row = sessions.find((s) => s.machine === machine && s.session === session);
      await api.acknowledge(machine, session);
      acked.set(keyOf(machine, session), row?.at ?? null);
      take(sessions, total);
      emit();
      changed();
    },
    close() {
      closed = true;
      window.clearTimeout(timer);
      window.clearInterval(recheck);
    },
  };
}
