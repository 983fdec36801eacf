import type { MachineView } from '../schemas.js';

export type Origin = 'configured' | 'announced';

/** What the board knows of one machine. */
export interface Machine {
  name: string;
  origin: Origin;
  location: string;
  state: 'up' | 'down';
  /** ms since the epoch of the last good poll or report; null if never. */
  lastSeen: number | null;
  firstSeen: number;
  error: string | null;
  /**
   * The last overview, as JSON text: 10,000 overviews kept as parsed objects are hundreds of
   * thousands of small objects for the GC to trace and promote, sweep after sweep.
   */
  overviewJson: string | null;
  queued: number;
  /** The machine's view serialised once per change, for the board bytes and the live feed. */
  json: string;
}

/** One poll's or one report's outcome: the single input of `observe`. */
export type Observation =
  | { ok: true; overview: Record<string, unknown>; location?: string }
  | { ok: false; error: string };

/** The machine as GET /api/board shows it. */
export function machineView(m: Machine): MachineView {
  return {
    name: m.name,
    origin: m.origin,
    state: m.state,
    location: m.location,
    last_seen: m.lastSeen === null ? null : new Date(m.lastSeen).toISOString(),
    error: m.error,
    queued: m.queued,
    overview:
      m.overviewJson === null ? null : (JSON.parse(m.overviewJson) as Record<string, unknown>),
  };
}

/** Sets `m.json` to the machine's view (the same text as JSON.stringify(machineView(m))). */
export function serialise(m: Machine): void {
  const head = JSON.stringify({
    name: m.name,
    origin: m.origin,
    state: m.state,
    location: m.location,
    last_seen: m.lastSeen === null ? null : new Date(m.lastSeen).toISOString(),
    error: m.error,
    queued: m.queued,
  });
  m.json = `${head.slice(0, -1)},"overview":${m.overviewJson ?? 'null'}}`;
}
