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
  overview: Record<string, unknown> | null;
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
    overview: m.overview,
  };
}

export function serialise(m: Machine): void {
  m.json = JSON.stringify(machineView(m));
}
