import type { CheckResult } from '../../shared/checks/wire.js';
import type { Clock } from '../../shared/clock.js';
import { type Labels, NO_LABELS } from '../../shared/labels.js';
import type { Selector } from '../../shared/selector.js';
import { type AgentReleases, NO_RELEASES, noteAgent, noteReleases } from './agent-self.js';
import { noteBells } from './bells.js';
import { ChangeCollector } from './change-set.js';
import type { BoardEvents } from './events.js';
import { heldSessions } from './held-sessions.js';
import { type AnnounceRefusal, foldName, type Identity } from './identity.js';
import { type Machine, NO_SESSIONS, newMachine, type Observation, type Origin } from './machine.js';
import { relabel } from './machine-labels.js';
import type { BoardView, MachineMemory, MachinePick, ViewLease } from './machine-memory.js';
import { watchMachine } from './machine-watch.js';
import { emptyMetrics, prepareOverview } from './metrics.js';
import type { MachineConfig } from './settings.js';

export { type AnnounceRefusal, foldName, type Identity } from './identity.js';

/** What a registry may be given beside its machines. */
export interface RegistryOptions {
  /** This board's id (board_id), written into the records it observes. Absent: none. */
  boardId?: string | null;
  /** The length all announced machines' overview JSON may take together. Absent: unbounded. */
  maxAnnouncedBytes?: number;
  /** Where state changes, bells and changed names are gathered. Absent: a new collector. */
  changes?: ChangeCollector;
  /** The agent files the board serves (a record's update_available). Absent: none. */
  releases?: AgentReleases;
  /** The board labels of a name, for a machine as it is added. Absent: none. */
  boardLabels?: (name: string) => Labels;
  /** A machine's overview carried check results (it runs checks for the board). */
  checkResults?: (name: string, results: readonly CheckResult[]) => void;
}

/**
 * Every machine the board knows, configured and announced. Polls and reports both go through
 * `observe`; the board view is cached as bytes and rebuilt only after a change.
 */
export class Registry {
  private readonly machines = new Map<string, Machine>();
  /** Every name by its case-folded form, so `ALPHA` cannot stand beside `alpha`. */
  private readonly folded = new Map<string, string>();
  private announcedCount = 0;
  /** The length of all announced machines' overview JSON together. */
  private announcedBytes = 0;
  /** GET /api/board's bytes, rebuilt on the board's clock. */
  private readonly viewCache: BoardView;
  /** Bumped whenever the set of announced identities changes (for the snapshot writer). */
  identityVersion = 0;
  /** This board's id (board_id), written into the records it observes. */
  private readonly boardId: string | null;
  private readonly maxAnnouncedBytes: number;
  private readonly releases: AgentReleases;
  private readonly boardLabels: (name: string) => Labels;
  private readonly checkResults: (name: string, results: readonly CheckResult[]) => void;
  /** Where state changes, bells and changed names are gathered for the next change set. */
  readonly changes: ChangeCollector;

  constructor(
    private readonly clock: Clock,
    private readonly events: BoardEvents,
    configured: readonly MachineConfig[],
    private readonly maxAnnounced: number,
    /** How the machines' data is kept and the view built (view/machineMemory). */
    readonly memory: MachineMemory,
    options: RegistryOptions = {},
  ) {
    this.boardId = options.boardId ?? null;
    this.maxAnnouncedBytes = options.maxAnnouncedBytes ?? Number.POSITIVE_INFINITY;
    this.changes = options.changes ?? new ChangeCollector();
    this.releases = options.releases ?? NO_RELEASES;
    this.boardLabels = options.boardLabels ?? (() => NO_LABELS);
    this.checkResults = options.checkResults ?? (() => undefined);
    this.viewCache = memory.view;
    for (const c of configured) {
      this.add({
        name: c.name,
        origin: 'configured',
        location: c.location,
        firstSeen: clock.now(),
      });
    }
  }

  get(name: string): Machine | undefined {
    return this.machines.get(name);
  }

  /** The last overview of machine `name` as UTF-8 JSON, or null: none (or no such machine). */
  overview(name: string): Buffer | null {
    const machine = this.machines.get(name);
    return machine === undefined ? null : this.memory.overview(machine);
  }

  all(): IterableIterator<Machine> {
    return this.machines.values();
  }

  /** The name the board has that equals `name` without regard to case, if any. */
  sameName(name: string): string | undefined {
    return this.folded.get(foldName(name));
  }

  /** Sets or ends a machine's silence (notifications); false if there is no such machine. */
  setSilence(name: string, until: number | null): boolean {
    const m = this.machines.get(name);
    if (m === undefined) return false;
    if (m.silencedUntil !== until) {
      m.silencedUntil = until;
      this.changed(m);
    }
    return true;
  }

  size(): number {
    return this.machines.size;
  }

  announced(): Machine[] {
    return [...this.machines.values()].filter((m) => m.origin === 'announced');
  }

  /** The one path by which a poll or a report changes a machine. */
  observe(machine: Machine, observation: Observation, remote = false): void {
    const now = this.clock.now();
    const previous = machine.observed ? machine.state : null;
    machine.board = this.boardId;
    if (observation.ok) {
      machine.state = 'up';
      machine.lastSeen = now;
      machine.error = null;
      const held = machine.overviewLength;
      const prepared =
        observation.prepared ??
        prepareOverview(
          observation.overview ?? {},
          observation.json ?? JSON.stringify(observation.overview ?? {}),
          observation.latencyMs ?? null,
        );
      // Labelled first: a machine's first slot then leaves room for its record's labels.
      if (prepared.labels !== undefined) relabel(machine, undefined, prepared.labels);
      this.memory.keepOverview(machine, prepared.json);
      this.memory.keepMetrics(machine, prepared.metrics);
      if (prepared.agent !== undefined) noteAgent(machine, prepared.agent, this.releases);
      if (prepared.checks != null) this.checkResults(machine.name, prepared.checks);
      watchMachine(machine, now, this.changes, observation.alerts);
      if (machine.origin === 'announced') {
        this.announcedBytes += machine.overviewLength - held;
        machine.intervalMs = observation.intervalMs ?? null;
        machine.verified = observation.verified ?? false;
        if (machine.late) this.setLate(machine, false, now);
      }
      if (observation.location !== undefined && observation.location !== machine.location) {
        machine.location = observation.location;
        this.identityVersion += 1;
      }
      // Kept first: the bells then hold the strings the machine already kept (view/kept-parts.ts).
      const fresh =
        prepared.sessions.length === 0
          ? NO_SESSIONS
          : this.memory.keptSessions(machine.sessions, prepared.sessions);
      noteBells(machine, fresh, previous === null, now, this.changes);
      const kept = machine.sessions.length === 0 ? NO_SESSIONS : heldSessions(machine, fresh);
      machine.heldSessions = kept;
      machine.sessions = kept.length === 0 ? fresh : [...fresh, ...kept];
    } else {
      if (machine.observed && machine.state === 'down' && machine.error === observation.error)
        return;
      machine.state = 'down';
      machine.error = observation.error;
      if (machine.metrics !== null) this.memory.keepMetrics(machine, emptyMetrics());
      if (machine.late) machine.late = false;
    }
    machine.observed = true;
    if (previous !== machine.state) {
      // A change of state is shown at once; a refresh of an up machine waits for the tick.
      this.invalidate(true);
      this.changes.transition({
        name: machine.name,
        origin: machine.origin,
        at: now,
        state: machine.state,
        previous,
        reason: machine.error,
        // Learnt from another board's record (cluster/remote-record.ts).
        ...(remote ? { remote: true } : {}),
      });
    }
    // A configured machine's poll shows in the view when the sweep ends (the view is "as of the
    // last sweep"; a state change above shows at once): 10,000 polls then cost one rebuild of
    // the view per sweep, not one per coalescing tick. A report shows at the next tick.
    this.changed(machine, machine.origin === 'announced');
  }

  private setLate(machine: Machine, late: boolean, now: number): void {
    machine.late = late;
    this.changes.lateChanged({ name: machine.name, at: now, late });
  }

  /**
   * Finds or creates the announced machine a report names. Refuses a configured name, and a
   * new name once the cap is reached.
   */
  announce(
    name: string,
    location: string,
  ): { machine: Machine; created: boolean } | AnnounceRefusal {
    const existing = this.machines.get(name);
    if (existing !== undefined) {
      if (existing.origin === 'configured') return { refused: 'configured' };
      return { machine: existing, created: false };
    }
    const same = this.folded.get(foldName(name));
    if (same !== undefined) return { refused: 'lookalike', existing: same };
    if (this.announcedCount >= this.maxAnnounced) return { refused: 'cap', cap: this.maxAnnounced };
    const machine = this.add({ name, origin: 'announced', location, firstSeen: this.clock.now() });
    return { machine, created: true };
  }

  /**
   * Whether an overview of `length` bytes of JSON, reported under `name`, fits the room
   * announced machines share (it replaces what that machine holds now).
   */
  roomFor(name: string, length: number): boolean {
    const held = this.machines.get(name)?.overviewLength ?? 0;
    return this.announcedBytes - held + length <= this.maxAnnouncedBytes;
  }

  /**
   * Marks announced machines that have not reported for `staleAfterMs` as down, and those
   * without a report for twice the interval they state as late (still up).
   */
  markStale(staleAfterMs: number, owns: (name: string) => boolean = () => true): void {
    const now = this.clock.now();
    for (const m of this.machines.values()) {
      if (m.origin !== 'announced' || m.state === 'down') continue;
      // Of several boards, the machine's owner says it is down (the others hear it from it).
      if (!owns(m.name)) continue;
      const since = m.lastSeen ?? m.firstSeen;
      if (now - since >= staleAfterMs) {
        this.observe(m, {
          ok: false,
          error: `no report for ${Math.round((now - since) / 1000)} s`,
        });
      } else if (!m.late && m.intervalMs !== null && now - since >= 2 * m.intervalMs) {
        this.setLate(m, true, now);
        this.changed(m);
      }
    }
  }

  /**
   * Makes the configured machines exactly `configured` (a reload): new ones are added (down until
   * polled), missing ones removed, moved ones relocated. An announced machine whose name is now
   * configured becomes the configured one. Announced machines are otherwise untouched.
   */
  setConfigured(configured: readonly MachineConfig[]): { added: string[]; removed: string[] } {
    const wanted = new Map(configured.map((c) => [c.name, c]));
    const added: string[] = [];
    const removed: string[] = [];
    for (const m of [...this.machines.values()]) {
      if (m.origin !== 'configured' || wanted.has(m.name)) continue;
      this.machines.delete(m.name);
      this.folded.delete(foldName(m.name));
      this.viewCache.namesChanged();
      this.changes.removedName(m.name);
      removed.push(m.name);
      this.events.machineRemoved(m.name);
    }
    for (const c of configured) {
      const existing = this.machines.get(c.name);
      if (existing?.origin === 'configured') {
        if (existing.location !== c.location) {
          existing.location = c.location;
          this.changed(existing);
        }
        continue;
      }
      if (existing !== undefined) this.forget(c.name);
      // An announced look-alike (another case) gives way to the configured name too.
      const same = this.folded.get(foldName(c.name));
      if (same !== undefined && same !== c.name) this.forget(same);
      const m = this.add({
        name: c.name,
        origin: 'configured',
        location: c.location,
        firstSeen: this.clock.now(),
      });
      added.push(c.name);
      this.events.machineChanged(m);
    }
    return { added, removed };
  }

  /** The location of `machine` is no longer proved by the key the board holds for it. */
  unprove(machine: Machine): void {
    if (!machine.verified) return;
    machine.verified = false;
    this.identityVersion += 1;
    this.changed(machine);
  }

  /** Removes an announced machine for good. */
  forget(name: string): void {
    const m = this.machines.get(name);
    if (m === undefined || m.origin !== 'announced') return;
    this.machines.delete(name);
    this.folded.delete(foldName(name));
    this.announcedCount -= 1;
    this.announcedBytes -= m.overviewLength;
    this.identityVersion += 1;
    this.viewCache.namesChanged();
    this.changes.removedName(name);
    this.events.machineRemoved(name);
  }

  /** Brings back announced machines from the identity snapshot, down until they report. */
  restore(identities: readonly Identity[]): void {
    for (const id of identities) {
      if (this.machines.has(id.name) || this.folded.has(foldName(id.name))) continue;
      const m = this.add({
        name: id.name,
        origin: 'announced',
        location: id.location,
        firstSeen: id.first_seen,
      });
      m.lastSeen = id.last_seen;
      m.verified = id.verified ?? false;
      m.state = 'down';
      m.error = 'no report since the board restarted';
      m.bytes = null;
    }
  }

  /**
   * Changes machine `name` with `change`, which answers whether it changed anything (then its
   * record is redone); false if there is no such machine.
   */
  update(name: string, change: (m: Machine) => boolean): boolean {
    const m = this.machines.get(name);
    if (m === undefined) return false;
    if (change(m)) this.changed(m);
    return true;
  }

  setQueued(name: string, count: number): void {
    const m = this.machines.get(name);
    if (m === undefined || m.queued === count) return;
    m.queued = count;
    this.changed(m);
  }

  /** The board's agent files changed: records whose update_available flipped are redone. */
  releasesChanged(): void {
    for (const m of this.machines.values()) if (noteReleases(m, this.releases)) this.changed(m);
  }

  sweepFinished(startedAt: number, durationMs: number, polled = true): void {
    this.viewCache.sweepFinished(startedAt, durationMs, polled);
  }

  /**
   * The board view as JSON bytes with its ETag (see ViewCache: rebuilt on the board's clock),
   * lent: call `release` once the bytes have all been written, so their memory can be used again.
   */
  view(): ViewLease {
    return this.viewCache.get(this.machines);
  }

  /** The view of the machines `selector` selects (GET /api/board?selector=), made now. */
  selectedView(selector: Selector): ViewLease {
    return this.viewCache.select(this.machines, selector);
  }

  /** The view of the machines `pick` picks (a scope, with or without a selector), made now. */
  pickedView(pick: MachinePick): ViewLease {
    return this.viewCache.pick(this.machines, pick);
  }

  private add(init: {
    name: string;
    origin: Origin;
    location: string;
    firstSeen: number;
  }): Machine {
    const m = newMachine(init);
    relabel(m, this.boardLabels(m.name));
    this.machines.set(m.name, m);
    this.folded.set(foldName(m.name), m.name);
    if (init.origin === 'announced') {
      this.announcedCount += 1;
      this.identityVersion += 1;
    }
    this.viewCache.namesChanged();
    return m;
  }

  private changed(m: Machine, refresh = true): void {
    m.bytes = null;
    if (refresh) this.invalidate();
    this.changes.changed(m.name);
    this.events.machineChanged(m);
  }

  private invalidate(force = false): void {
    this.viewCache.invalidate(force);
  }
}
