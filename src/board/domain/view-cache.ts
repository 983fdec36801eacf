import type { Clock } from '../../shared/clock.js';
import { type Machine, recordBytes } from './machine.js';

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');
/** Changes between sweeps are coalesced into one rebuild of the view per this many ms. */
export const VIEW_COALESCE_MS = 250;

/**
 * The board view (GET /api/board) as JSON bytes with its ETag, rebuilt on the board's clock:
 * after each sweep, and at once when a machine is added, removed or changes state; refreshes
 * (reports, the upkeep) are coalesced into one rebuild per VIEW_COALESCE_MS, so a flood of
 * reports never makes each GET copy the whole view again.
 */
export class ViewCache {
  private sortedNames: string[] | null = null;
  private cached: { bytes: Buffer; etag: string } | null = null;
  /** The bytes are older than the machines. */
  private dirty = true;
  /** The next get() rebuilds whatever the time. */
  private forced = true;
  private builtAt = Number.NEGATIVE_INFINITY;
  private generation = 0;
  private readonly epoch = Math.random().toString(36).slice(2, 10);
  private sweptAt: number | null = null;
  private sweepMs: number | null = null;

  constructor(private readonly clock: Clock) {}

  /** Something changed; `force`: show it at the next GET, not after the coalescing delay. */
  invalidate(force = false): void {
    this.dirty = true;
    if (force) this.forced = true;
  }

  /** The set of names changed (added or removed): sort again, rebuild at once. */
  namesChanged(): void {
    this.sortedNames = null;
    this.invalidate(true);
  }

  sweepFinished(startedAt: number, durationMs: number): void {
    this.sweptAt = startedAt + durationMs;
    this.sweepMs = durationMs;
    this.invalidate(true);
  }

  /** The view of `machines`, rebuilt only when due. */
  get(machines: ReadonlyMap<string, Machine>): { bytes: Buffer; etag: string } {
    const now = this.clock.now();
    if (
      this.cached !== null &&
      (!this.dirty || (!this.forced && now - this.builtAt < VIEW_COALESCE_MS))
    ) {
      return this.cached;
    }
    this.dirty = false;
    this.forced = false;
    this.builtAt = now;
    this.generation += 1;
    if (this.sortedNames === null) {
      this.sortedNames = [...machines.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
    // One copy of each machine's bytes, encoded once per change of that machine: rebuilding
    // the view of 10,000 machines is then one memcpy, not a join and a UTF-8 encode of it all.
    const head = JSON.stringify({
      swept_at: this.sweptAt === null ? null : new Date(this.sweptAt).toISOString(),
      sweep_ms: this.sweepMs,
    }).slice(0, -1);
    const parts: Buffer[] = [Buffer.from(`${head},"machines":[`)];
    for (const name of this.sortedNames) {
      const m = machines.get(name);
      if (m === undefined) continue;
      if (parts.length > 1) parts.push(COMMA);
      parts.push(recordBytes(m));
    }
    parts.push(CLOSE);
    this.cached = { bytes: Buffer.concat(parts), etag: `"${this.epoch}-${this.generation}"` };
    return this.cached;
  }
}
