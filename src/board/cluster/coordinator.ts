import type { Labels } from '../../shared/labels.js';
import type { AgentSelf } from '../domain/agent-self.js';
import type { ChangeSet } from '../domain/change-set.js';
import type { MachineAlerts } from '../domain/machine.js';
import { emptyMetrics, type MachineMetrics, type SessionMark } from '../domain/metrics.js';
import type { Registry } from '../domain/registry.js';
import type { NotifyEvent } from '../notify/event.js';
import type { ClaimsTable, RecordsTable, RecordToPublish } from '../store/state.js';
import { recordBytes } from '../view/machine-record.js';
import { readForgetNotice } from './forget-notices.js';
import type { Membership } from './membership.js';
import { claimChannel } from './notify-claims.js';
import type { Ownership } from './ownership.js';
import { agentLabelsOf, alertsOf, observeRemote } from './remote-record.js';

/** The numbers and sessions a publishing board took from an overview (checked loosely: boards trust each other). */
function metaOf(text: string | null): {
  m: MachineMetrics | null;
  s: SessionMark[];
  k: number | null;
  alerts: MachineAlerts | undefined;
  agent: AgentSelf | null | undefined;
  labels: Labels | undefined;
} | null {
  if (text === null) return null;
  const value = JSON.parse(text) as {
    m?: unknown;
    s?: unknown;
    k?: unknown;
    a?: unknown;
    d?: unknown;
    g?: unknown;
    l?: unknown;
  } | null;
  if (value === null || typeof value !== 'object') return null;
  // A board of an older version publishes fewer numbers: the missing ones are empty.
  const m =
    value.m !== null && typeof value.m === 'object'
      ? { ...emptyMetrics(), ...(value.m as Partial<MachineMetrics>) }
      : null;
  const s = Array.isArray(value.s) ? (value.s as SessionMark[]) : [];
  const k = typeof value.k === 'number' && Number.isFinite(value.k) ? value.k : null;
  // What the machine said of its agent (absent: a board of an older version).
  const g = value.g;
  const agent =
    g === undefined ? undefined : g !== null && typeof g === 'object' ? (g as AgentSelf) : null;
  return { m, s, k, alerts: alertsOf(value.a, value.d), agent, labels: agentLabelsOf(value.l) };
}

/** Where a record's overview starts: it is the record's last member (see recordBytes). */
const OVERVIEW_KEY = ',"overview":';

/** A dead board's unsent messages older than this are not sent any more (old news). */
const TAKEOVER_MS = 10 * 60_000;

/** Records read per query when catching up with another board. */
const READ_LIMIT = 5000;

/** A record as another board published it (GET /api/board's shape; what is read of it). */
interface Published {
  name?: unknown;
  origin?: unknown;
  state?: unknown;
  error?: unknown;
  last_seen?: unknown;
  location?: unknown;
  verified?: unknown;
}

/**
 * Several boards on one store, as one board (DESIGN section 9): the records they share. Each
 * configured machine is polled by its owner among the live boards (ownership.ts); after each
 * change set a board publishes the records it observed (its polls, the reports it took) and the
 * others read them — woken by LISTEN/NOTIFY, and every second regardless — through the same
 * observe path as a poll. An action queued on another board wakes this one the same way, and
 * messages a dead board left unsent are taken over. With one live board nothing here changes
 * what a board does.
 */
export class Coordinator {
  private readonly cursors = new Map<string, number>();
  private publishing: Promise<void> = Promise.resolve();
  private pulling: Promise<void> | null = null;
  private pullAgain = false;
  /** The live boards the last publish saw: a change (a board joined) republishes everything. */
  private publishedFor = '';

  constructor(
    private readonly deps: {
      self: () => string;
      membership: Membership;
      /** Who owns what among the live boards. */
      ownership: Ownership;
      registry: Registry;
      records: RecordsTable;
      /**
       * Reads what other boards may have changed in the store: the queue (actions queued,
       * handed over, taken) and the silences.
       */
      syncShared: () => Promise<void>;
      /** The time of the last key proof this board accepted for a name, and one another board did. */
      keyProofAt: (name: string) => number | null;
      keyProofSeen: (name: string, at: number) => void;
      /** Notifications claimed in the store, and how to send those a dead board left unsent. */
      claims: ClaimsTable;
      resend: (channel: string, events: NotifyEvent[]) => void;
      /** Forgets an announced machine another board forgot (`revoked`: and revoked its key). */
      forget: (name: string, revoked: boolean) => void;
      /** Whether reports under this name are refused here (its key revoked). */
      revoked: (name: string) => boolean;
      onError: (error: unknown) => void;
    },
  ) {}

  /** A change set closed: the records this board observed in it go to the store, for the others. */
  onChangeSet(set: ChangeSet): void {
    if (!this.deps.ownership.clustered()) {
      this.publishedFor = '';
      return;
    }
    const self = this.deps.self();
    const live = this.deps.membership.liveIds().join('\n');
    const everything = live !== this.publishedFor;
    const rows: RecordToPublish[] = [];
    const names = everything ? [...set.machines()].map((m) => m.name) : set.changed;
    for (const name of names) {
      const m = this.deps.registry.get(name);
      if (m === undefined || m.board !== self) continue;
      // What this board took from the overview goes with it: the readers do not parse it again;
      // and the time of the last key proof it accepted (no report is replayed to another board).
      rows.push({
        name,
        record: recordBytes(m).toString('utf8'),
        meta: JSON.stringify({
          m: m.metrics,
          s: m.sessions,
          k: this.deps.keyProofAt(name),
          a: m.containerAlerts,
          d: m.failingDisks,
          g: m.agent,
          l: m.agentLabels,
        }),
      });
    }
    this.publishing = this.publishing
      .then(async () => {
        await this.deps.records.publish(self, rows);
        this.publishedFor = live;
      })
      .catch((error: unknown) => {
        // Everything again at the next change set (the others may have missed some).
        this.publishedFor = '';
        this.deps.onError(error);
      });
  }

  /** Reads what the other boards published since the last read (every second, and when woken). */
  pull(): Promise<void> {
    if (this.pulling !== null) {
      this.pullAgain = true;
      return this.pulling;
    }
    this.pulling = (async () => {
      do {
        this.pullAgain = false;
        for (const board of this.deps.membership.otherIds()) await this.pullFrom(board);
        // An action queued through another board is handed over by whichever board the machine
        // reports to next; one taken (a result) or expired there leaves the queue here too.
        if (this.deps.ownership.clustered()) await this.deps.syncShared();
        await this.takeOverDeliveries();
      } while (this.pullAgain);
    })().finally(() => {
      this.pulling = null;
    });
    return this.pulling;
  }

  /**
   * At start, with other boards alive: waits (at most `timeoutMs`) until each has published what
   * it observed — a board that was alone publishes nothing until it sees another one — so this
   * board's first polls start from their records and are no first sightings.
   */
  async awaitPeers(timeoutMs: number): Promise<void> {
    const started = Date.now();
    for (;;) {
      await this.pull();
      const others = this.deps.membership.liveIds().filter((id) => id !== this.deps.self());
      if (others.every((id) => (this.cursors.get(id) ?? 0) > 0)) return;
      if (Date.now() - started >= timeoutMs) return;
      await new Promise((r) => setTimeout(r, 250));
      await this.deps.membership.beat();
    }
  }

  /**
   * Messages a dead board claimed and never delivered (it died while sending, or between its
   * claim and its send): taken over in the store (one board takes each) and sent from here.
   */
  private async takeOverDeliveries(): Promise<void> {
    const { membership } = this.deps;
    if (membership.cutOff()) return;
    const live = new Set(membership.liveIds());
    const dead = membership.otherIds().filter((id) => !live.has(id));
    if (dead.length === 0) return;
    const now = Date.now();
    const taken = await this.deps.claims.takeOver(this.deps.self(), dead, now - TAKEOVER_MS, now);
    const byChannel = new Map<string, NotifyEvent[]>();
    for (const item of taken) {
      const channel = claimChannel(item.key);
      const events = byChannel.get(channel) ?? [];
      events.push(JSON.parse(item.event) as NotifyEvent);
      byChannel.set(channel, events);
    }
    for (const [channel, events] of byChannel) this.deps.resend(channel, events);
  }

  /** Waits for the publishing under way (at shutdown). */
  async settled(): Promise<void> {
    await this.publishing;
    await this.pulling;
  }

  private async pullFrom(board: string): Promise<void> {
    for (;;) {
      const rows = await this.deps.records.since(board, this.cursors.get(board) ?? 0, READ_LIMIT);
      for (const row of rows) {
        this.cursors.set(board, row.version);
        try {
          this.apply(row.board, row.record, row.meta);
        } catch (error) {
          this.deps.onError(error);
        }
      }
      if (rows.length < READ_LIMIT) return;
    }
  }

  private apply(board: string, text: string, metaText: string | null): void {
    const { registry } = this.deps;
    // A record ends with its overview (recordBytes): the head is parsed alone; the overview is
    // kept as the text it came as, with the numbers and sessions the publisher took from it.
    const meta = metaOf(metaText);
    if (meta === null) return;
    const at = text.indexOf(OVERVIEW_KEY);
    if (at < 0) {
      // No overview: a machine another board forgot (see ForgetNotices).
      const notice = readForgetNotice(text);
      if (notice !== null) this.deps.forget(notice.name, notice.revoked);
      return;
    }
    const rec = JSON.parse(`${text.slice(0, at)}}`) as Published;
    const overviewJson = text.slice(at + OVERVIEW_KEY.length, -1);
    if (typeof rec.name !== 'string' || typeof rec.location !== 'string') return;
    let machine = registry.get(rec.name);
    if (machine === undefined) {
      // A name revoked since that board took its report is not listed again.
      if (rec.origin !== 'announced' || this.deps.revoked(rec.name)) return;
      const found = registry.announce(rec.name, rec.location);
      if ('refused' in found) return;
      machine = found.machine;
    }
    const lastSeen = typeof rec.last_seen === 'string' ? Date.parse(rec.last_seen) : null;
    const seen = lastSeen !== null && Number.isFinite(lastSeen) ? lastSeen : null;
    if (machine.origin === 'configured') {
      // Its owner polls it; a record from a board that polled it before a failover is older
      // news, except as the state to start from (its first poll here is then no first sighting).
      if (this.deps.ownership.owns(machine.name) && machine.observed) return;
    } else {
      const newer = seen !== null && (machine.lastSeen === null || seen > machine.lastSeen);
      const ownerSaysDown =
        rec.state === 'down' &&
        machine.state === 'up' &&
        !this.deps.ownership.owns(machine.name) &&
        (seen ?? 0) >= (machine.lastSeen ?? 0);
      if (!newer && !ownerSaysDown) return;
    }
    if (rec.origin === 'announced' && meta.k !== null) this.deps.keyProofSeen(machine.name, meta.k);
    observeRemote(registry, machine, {
      up: rec.state === 'up',
      error: typeof rec.error === 'string' ? rec.error : null,
      lastSeen: seen,
      overviewJson: overviewJson === 'null' ? '{}' : overviewJson,
      metrics: meta.m ?? emptyMetrics(),
      sessions: meta.s,
      ...(meta.alerts === undefined ? {} : { alerts: meta.alerts }),
      ...(meta.agent === undefined ? {} : { agent: meta.agent }),
      ...(meta.labels === undefined ? {} : { labels: meta.labels }),
      location: rec.location,
      verified: rec.verified === true,
      board,
    });
  }
}
