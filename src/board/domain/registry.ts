import type { Clock } from '../../shared/clock.js';
import type { MachineConfig } from '../config.js';
import type { BoardEvents } from './events.js';
import { type Machine, type Observation, type Origin, serialise } from './machine.js';

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** Who an announced machine is, as the identity snapshot keeps it (never the overview). */
export interface Identity {
  name: string;
  location: string;
  first_seen: number;
  last_seen: number | null;
}

export type AnnounceRefusal = { refused: 'configured' } | { refused: 'cap'; cap: number };

/**
 * Every machine the board knows, configured and announced. Polls and reports both go through
 * `observe`; the board view is cached as bytes and rebuilt only after a change.
 */
export class Registry {
  private readonly machines = new Map<string, Machine>();
  private announcedCount = 0;
  /** The length of all announced machines' overview JSON together. */
  private announcedBytes = 0;
  private sortedNames: string[] | null = null;
  private cachedView: { bytes: Buffer; etag: string } | null = null;
  /** Each machine's JSON as bytes, for the view; `json` tells whether it is still current. */
  private readonly encoded = new WeakMap<Machine, { json: string; bytes: Buffer }>();
  private generation = 0;
  private readonly epoch = Math.random().toString(36).slice(2, 10);
  private sweptAt: number | null = null;
  private sweepMs: number | null = null;
  /** Bumped whenever the set of announced identities changes (for the snapshot writer). */
  identityVersion = 0;

  constructor(
    private readonly clock: Clock,
    private readonly events: BoardEvents,
    configured: readonly MachineConfig[],
    private readonly maxAnnounced: number,
    private readonly maxAnnouncedBytes = Number.POSITIVE_INFINITY,
  ) {
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

  size(): number {
    return this.machines.size;
  }

  announced(): Machine[] {
    return [...this.machines.values()].filter((m) => m.origin === 'announced');
  }

  /** The one path by which a poll or a report changes a machine. */
  observe(machine: Machine, observation: Observation): void {
    const now = this.clock.now();
    if (observation.ok) {
      machine.state = 'up';
      machine.lastSeen = now;
      machine.error = null;
      const held = machine.overviewJson?.length ?? 0;
      machine.overviewJson = JSON.stringify(observation.overview);
      if (machine.origin === 'announced') {
        this.announcedBytes += machine.overviewJson.length - held;
      }
      if (observation.location !== undefined && observation.location !== machine.location) {
        machine.location = observation.location;
        this.identityVersion += 1;
      }
    } else {
      if (machine.state === 'down' && machine.error === observation.error) return;
      machine.state = 'down';
      machine.error = observation.error;
    }
    this.changed(machine);
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
    if (this.announcedCount >= this.maxAnnounced) return { refused: 'cap', cap: this.maxAnnounced };
    const machine = this.add({ name, origin: 'announced', location, firstSeen: this.clock.now() });
    return { machine, created: true };
  }

  /**
   * Whether an overview of `length` characters of JSON, reported under `name`, fits the room
   * announced machines share (it replaces what that machine holds now).
   */
  roomFor(name: string, length: number): boolean {
    const held = this.machines.get(name)?.overviewJson?.length ?? 0;
    return this.announcedBytes - held + length <= this.maxAnnouncedBytes;
  }

  /** Marks announced machines that have not reported for `staleAfterMs` as down. */
  markStale(staleAfterMs: number): void {
    const now = this.clock.now();
    for (const m of this.machines.values()) {
      if (m.origin !== 'announced' || m.state === 'down') continue;
      const since = m.lastSeen ?? m.firstSeen;
      if (now - since >= staleAfterMs) {
        this.observe(m, {
          ok: false,
          error: `no report for ${Math.round((now - since) / 1000)} s`,
        });
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
      this.sortedNames = null;
      this.invalidate();
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

  /** Removes an announced machine for good. */
  forget(name: string): void {
    const m = this.machines.get(name);
    if (m === undefined || m.origin !== 'announced') return;
    this.machines.delete(name);
    this.announcedCount -= 1;
    this.announcedBytes -= m.overviewJson?.length ?? 0;
    this.sortedNames = null;
    this.identityVersion += 1;
    this.invalidate();
    this.events.machineRemoved(name);
  }

  /** Brings back announced machines from the identity snapshot, down until they report. */
  restore(identities: readonly Identity[]): void {
    for (const id of identities) {
      if (this.machines.has(id.name)) continue;
      const m = this.add({
        name: id.name,
        origin: 'announced',
        location: id.location,
        firstSeen: id.first_seen,
      });
      m.lastSeen = id.last_seen;
      m.state = 'down';
      m.error = 'no report since the board restarted';
      serialise(m);
    }
  }

  identities(): Identity[] {
    return this.announced().map((m) => ({
      name: m.name,
      location: m.location,
      first_seen: m.firstSeen,
      last_seen: m.lastSeen,
    }));
  }

  setQueued(name: string, count: number): void {
    const m = this.machines.get(name);
    if (m === undefined || m.queued === count) return;
    m.queued = count;
    this.changed(m);
  }

  sweepFinished(startedAt: number, durationMs: number): void {
    this.sweptAt = startedAt + durationMs;
    this.sweepMs = durationMs;
    this.invalidate();
  }

  /** The board view as JSON bytes with its ETag, built at most once per change. */
  view(): { bytes: Buffer; etag: string } {
    if (this.cachedView !== null) return this.cachedView;
    if (this.sortedNames === null) {
      this.sortedNames = [...this.machines.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
    // One copy of each machine's bytes, encoded once per change of that machine: rebuilding
    // the view of 10,000 machines is then one memcpy, not a join and a UTF-8 encode of it all.
    const head = JSON.stringify({
      swept_at: this.sweptAt === null ? null : new Date(this.sweptAt).toISOString(),
      sweep_ms: this.sweepMs,
    }).slice(0, -1);
    const parts: Buffer[] = [Buffer.from(`${head},"machines":[`)];
    for (const name of this.sortedNames) {
      const m = this.machines.get(name);
      if (m === undefined) continue;
      let encoded = this.encoded.get(m);
      if (encoded === undefined || encoded.json !== m.json) {
        encoded = { json: m.json, bytes: Buffer.from(m.json) };
        this.encoded.set(m, encoded);
      }
      if (parts.length > 1) parts.push(COMMA);
      parts.push(encoded.bytes);
    }
    parts.push(CLOSE);
    const bytes = Buffer.concat(parts);
    this.cachedView = { bytes, etag: `"${this.epoch}-${this.generation}"` };
    return this.cachedView;
  }

  private add(init: {
    name: string;
    origin: Origin;
    location: string;
    firstSeen: number;
  }): Machine {
    const m: Machine = {
      ...init,
      state: 'down',
      lastSeen: null,
      error: init.origin === 'configured' ? 'not polled yet' : null,
      overviewJson: null,
      queued: 0,
      json: '',
    };
    serialise(m);
    this.machines.set(m.name, m);
    this.sortedNames = null;
    if (init.origin === 'announced') {
      this.announcedCount += 1;
      this.identityVersion += 1;
    }
    this.invalidate();
    return m;
  }

  private changed(m: Machine): void {
    serialise(m);
    this.invalidate();
    this.events.machineChanged(m);
  }

  private invalidate(): void {
    this.generation += 1;
    this.cachedView = null;
  }
}
