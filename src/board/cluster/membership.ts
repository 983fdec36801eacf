import type { BoardRow, BoardsTable } from '../store/state.js';

/** One board as GET /api/cluster lists it. */
export interface BoardView {
  id: string;
  alive: boolean;
  /** ISO 8601 time of its last heartbeat. */
  seen_at: string;
  /** Configured machines it polls. */
  machines: number;
}

/** How often a board writes its heartbeat and reads everyone's (the scheduler's tick). */
export const HEARTBEAT_MS = 1000;

/**
 * The boards that share this board's store, as their heartbeat rows say (Zabbix's HA node
 * table): each board writes its row every second; one silent for `failover_after` is dead.
 * Whether a board is alive is a plain function of the rows and the time (`alive`), so it is
 * tested without a database. A single board lists itself.
 */
export class Membership {
  private readonly startedAt: number;
  /** The rows as last read (this board's own as last written). */
  private rows: BoardRow[] = [];
  /** When the rows were last read (null: never). */
  private readAt: number | null = null;

  constructor(
    private readonly table: BoardsTable,
    private readonly self: () => { id: string; machines: number; failoverAfterMs: number },
    private readonly now: () => number,
  ) {
    this.startedAt = now();
  }

  /** Writes this board's heartbeat, then reads every board's (the scheduler, every second). */
  async beat(): Promise<void> {
    const { id, machines } = this.self();
    await this.table.beat({ id, started_at: this.startedAt, seen_at: this.now(), machines });
    this.rows = await this.table.list();
    this.readAt = this.now();
  }

  /**
   * Whether this board has been cut off from the store for `failover_after`: the others count it
   * dead by now and have taken its machines; it goes on with the boards it last saw alive (it
   * does not take theirs), and sends no notification (see Ownership.notifies).
   */
  cutOff(): boolean {
    const { failoverAfterMs } = this.self();
    return this.readAt !== null && this.now() - this.readAt >= failoverAfterMs;
  }

  /**
   * The time the rows are judged at: now, but at most one heartbeat after they were read. A
   * board whose own read is late (its store slow, its event loop busy, cut off altogether)
   * does not know that the others fell silent, so it does not count them dead for it: they
   * might have beaten in the meantime. Judged at `now`, every read late by more than
   * `failover_after` − 1 s made this board take the others' machines while they still polled
   * them.
   */
  private asOf(): number {
    const now = this.now();
    return this.readAt === null ? now : Math.min(now, this.readAt + HEARTBEAT_MS);
  }

  /** The ids of the boards alive now, this one included, sorted. */
  liveIds(): string[] {
    const { id, failoverAfterMs } = this.self();
    const now = this.asOf();
    const ids = this.rows
      .filter((r) => r.id !== id && alive(r, now, failoverAfterMs))
      .map((r) => r.id);
    return [...ids, id].sort();
  }

  /** The ids of every other board that ever wrote a heartbeat (dead ones' last records count). */
  otherIds(): string[] {
    const { id } = this.self();
    return this.rows.filter((r) => r.id !== id).map((r) => r.id);
  }

  /** This board's id (GET /api/cluster's `self`). */
  selfId(): string {
    return this.self().id;
  }

  /** GET /api/cluster: every board known, alive or not; this one always, from memory. */
  boards(): BoardView[] {
    const { id, machines, failoverAfterMs } = this.self();
    const now = this.asOf();
    const others = this.rows.filter((r) => r.id !== id);
    const mine: BoardRow = { id, started_at: this.startedAt, seen_at: this.now(), machines };
    return [...others, mine]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((r) => ({
        id: r.id,
        alive: r.id === id || alive(r, now, failoverAfterMs),
        seen_at: new Date(r.seen_at).toISOString(),
        machines: r.machines,
      }));
  }
}

/** Whether a board's last heartbeat is recent enough for it to count as alive. */
export function alive(row: BoardRow, now: number, failoverAfterMs: number): boolean {
  return now - row.seen_at < failoverAfterMs;
}
