import type { NotifyEvent } from '../notify/event.js';
import type { NotificationClaims } from '../notify/ports.js';
import type { ClaimsTable } from '../store/state.js';
import type { Ownership } from './ownership.js';

/**
 * Of several boards, an event of the same kind for the same machine and channel claimed by
 * another board this recently is not sent again (two boards that both thought they owned it).
 */
const CLAIM_WINDOW_MS = 30_000;

/**
 * A notification's claim: channel, kind, machine (and session, metric, path); a container's or a
 * disk's add its name and whether it is the recovery, a check's its name and state (the keys of the other kinds stay as they
 * were, which boards of an older version still compute).
 */
function claimKey(channel: string, e: NotifyEvent): string {
  const key = [channel, e.event, e.machine, e.session ?? '', e.metric ?? '', e.path ?? ''];
  const subject = e.container ?? e.device;
  if (subject !== undefined) key.push(subject, e.recovered === true ? 'recovered' : '');
  // A check's: its name, its change of state, and a certificate change's description.
  if (e.check !== undefined) key.push(e.check, e.state ?? '', e.cert_changed ?? '');
  return key.join('\n');
}

/** The channel a claim's key names (see claimKey). */
export function claimChannel(key: string): string {
  return key.split('\n')[0] ?? '';
}

/**
 * Notifications claimed in the store before they are sent, of several boards: each event goes
 * out once. Settled once delivered (or failed for good); a board that dies with messages unsent
 * leaves its claims to another, which takes them over (Coordinator.pull).
 */
export class NotifyClaims implements NotificationClaims {
  constructor(
    private readonly deps: {
      self: () => string;
      table: ClaimsTable;
      ownership: Ownership;
      now: () => number;
    },
  ) {}

  claim(channel: string, events: NotifyEvent[]): Promise<NotifyEvent[]> | null {
    if (!this.deps.ownership.clustered()) return null;
    const items = events.map((e) => ({ key: claimKey(channel, e), event: JSON.stringify(e) }));
    return this.deps.table
      .claim(this.deps.self(), items, this.deps.now(), CLAIM_WINDOW_MS)
      .then((claimed) => {
        const got = new Set(claimed);
        return events.filter((e) => got.has(claimKey(channel, e)));
      });
  }

  settle(channel: string, events: NotifyEvent[]): void {
    this.deps.table.settle(events.map((e) => claimKey(channel, e))).catch(() => undefined);
  }
}
