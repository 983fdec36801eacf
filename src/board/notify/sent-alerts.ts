import type { Episode } from './episode.js';
import type { SentAlertRecord, SentAlertsTable } from './ports.js';

/** A disk alert as kept: when the problem began, and each rule's episode of it (by rule key). */
export interface KeptAlert {
  machine: string;
  subject: string;
  since: number;
  sent: Record<string, Episode>;
}

/** The key a problem is kept under: JSON (PostgreSQL's text takes no NUL). */
export const alertKey = (event: string, machine: string, subject: string): string =>
  JSON.stringify([event, machine, subject]);

/** A row read back, or null when it is not one this board can use. */
function parsed(row: SentAlertRecord): KeptAlert | null {
  try {
    const [event, machine, subject] = JSON.parse(row.key) as unknown[];
    const value = JSON.parse(row.alert) as { since?: unknown; sent?: unknown };
    if (event !== 'disk_health' || typeof machine !== 'string' || typeof subject !== 'string')
      return null;
    if (typeof value.since !== 'number' || typeof value.sent !== 'object' || value.sent === null)
      return null;
    return { machine, subject, since: value.since, sent: value.sent as Record<string, Episode> };
  } catch {
    return null;
  }
}

/**
 * The disk alerts the rules sent and that have not recovered, kept in the store: a restarted
 * board sees a failing disk "for the first time" again, and without them it alerted again.
 * Read once at start; written in order behind the board's tick (a failed write is reported,
 * and costs at most one alert sent twice after a restart).
 */
export class SentAlerts {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly table: SentAlertsTable,
    private readonly rows: readonly SentAlertRecord[],
    private readonly onError: (error: unknown) => void,
  ) {}

  /** The alerts kept at the last stop, by key. */
  loaded(): Map<string, KeptAlert> {
    const out = new Map<string, KeptAlert>();
    for (const row of this.rows) {
      const alert = parsed(row);
      if (alert !== null) out.set(row.key, alert);
    }
    return out;
  }

  keep(key: string, alert: KeptAlert): void {
    const record = {
      key,
      machine: alert.machine,
      alert: JSON.stringify({ since: alert.since, sent: alert.sent }),
    };
    this.inOrder(() => this.table.put(record));
  }

  drop(keys: readonly string[]): void {
    if (keys.length > 0) this.inOrder(() => this.table.remove(keys));
  }

  /** Resolves once the writes asked for so far are done (tests, and a stopping board). */
  settled(): Promise<void> {
    return this.chain;
  }

  private inOrder(write: () => Promise<void>): void {
    this.chain = this.chain.then(write).catch(this.onError);
  }
}
