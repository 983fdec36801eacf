import type { CheckResult } from '../../shared/checks/wire.js';
import { type Labels, NO_LABELS } from '../../shared/labels.js';
import type { AgentSelf } from './agent-self.js';
import type { ContainerAlert, ContainerUse, FailingDisk } from './machine-now.js';
import type { MachineMetrics, SessionMark } from './metrics.js';

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
   * The machine's memory outside the JS heap (see keepOverview, view/machine-record.ts): its
   * record's head, written right before `headRoom`, then its last overview as UTF-8 JSON from
   * `headRoom` on, then the record's closing brace; written in place while the new overview
   * fits. 10,000 overviews kept as parsed objects (or as strings) are garbage for the GC to trace
   * and promote, and a new buffer per report is memory given back only at the next
   * full collection.
   */
  slot: Buffer | null;
  headRoom: number;
  /** The length of the last overview in `slot` (bytes); 0: none yet. */
  overviewLength: number;
  /** The numbers taken from the last overview (null until one arrived). */
  metrics: MachineMetrics | null;
  /** Whether the board has observed it (a poll or a report) since it started. */
  observed: boolean;
  /** announced: the interval the machine says it reports at (ms), null if it does not say. */
  intervalMs: number | null;
  /** announced: no report for twice its interval, still up (amber). */
  late: boolean;
  /** announced: its latest report proved the key the board holds for it. */
  verified: boolean;
  /** ms since the epoch until which notifications for it are silenced; null if not. */
  silencedUntil: number | null;
  /** The latest end among the selector silences that select it now; null if none. */
  coveredUntil: number | null;
  /** The board that last polled it or took its report (board_id), or null: not yet. */
  board: string | null;
  /** The newest bell time (ISO text, as the agent sent it) already seen. */
  lastBellAt: string | null;
  /**
   * The sessions of its last overview (shared with other boards with its record), then those
   * held: `heldSessions`.
   */
  sessions: readonly SessionMark[];
  /**
   * Sessions waiting for a person that its last overview no longer lists (an agent restarted
   * without them): held until acknowledged, rung again, or the machine is forgotten.
   */
  heldSessions: readonly SessionMark[];
  /** The acknowledged bells of its sessions (the inbox's, by session), or null: none. */
  acks: ReadonlyMap<string, AckMark> | null;
  queued: number;
  /**
   * The containers of its last overview that listed them, kept while it is down: what the next
   * list is compared with (machine-watch.ts). The same list as its metrics' while it is up.
   */
  containersSeen: readonly ContainerUse[] | null;
  /** Containers in an open episode: they ran and stopped, or turned unhealthy. */
  containerAlerts: readonly ContainerAlert[];
  /** Disks whose SMART health check fails. */
  failingDisks: readonly FailingDisk[];
  /** What its last overview said of its agent (version, file, updates), or null: nothing. */
  agent: AgentSelf | null;
  /** Its labels: the board's and its agent's together, the board's value winning on a key. */
  labels: Labels;
  /** The labels the board set (board.yaml, the API, the enroll dialog): what access is decided on. */
  boardLabels: Labels;
  /** The labels its last overview carried (`labels:` in the agent's config). */
  agentLabels: Labels;
  /** The board serves its kind of agent file, and that file differs from the one it runs. */
  updateAvailable: boolean;
  /**
   * The machine's record as UTF-8 JSON (a part of `slot`), made when first asked for after a
   * change (the view's rebuild, the live feed's flush), not per report: null while stale. Its
   * bytes are written over by the next change: read it before the next turn of the event loop.
   */
  bytes: Buffer | null;
}

/** An acknowledgement as a machine's record needs it: the `at` of the bell acknowledged. */
export interface AckMark {
  bellAt: string;
}

/** What is read out of an overview once (possibly off the main thread, by the poller). */
export interface PreparedOverview {
  /**
   * The overview as JSON text, or as its UTF-8 bytes in a buffer of their own (the poller
   * sends bytes, moved across threads without a copy, so the board encodes nothing).
   */
  json: string | Uint8Array;
  metrics: MachineMetrics;
  sessions: SessionMark[];
  /** What it says of its agent (absent: read from the overview when kept). */
  agent?: AgentSelf | null;
  /** The labels it carries (absent: the machine keeps those it has). */
  labels?: Labels;
  /** The check results it carries, as a runner for the board (null or absent: none). */
  checks?: CheckResult[] | null;
  /** The version of the checks it says it was last handed (absent: it does not say). */
  checksVersion?: string | undefined;
}

/** A machine's open container and disk episodes, as another board published them. */
export interface MachineAlerts {
  containers: readonly ContainerAlert[];
  disks: readonly FailingDisk[];
}

/** One poll's or one report's outcome: the single input of `observe`. */
export type Observation =
  | {
      ok: true;
      /** The overview, as parsed; absent when `prepared` carries what the board keeps of it. */
      overview?: Record<string, unknown>;
      prepared?: PreparedOverview;
      /** The overview's JSON text as received, when it is exactly the overview (a poll). */
      json?: string;
      /** `json` as UTF-8 in a buffer of its own, when the poll received exactly those bytes. */
      jsonBytes?: Buffer;
      location?: string;
      /** configured: the poll's round trip. */
      latencyMs?: number;
      /** announced: the report interval it states. */
      intervalMs?: number | null;
      /** announced: whether the report proved the board's key for it. */
      verified?: boolean;
      /** Another board's record: the alerts it holds for the machine, taken as they are. */
      alerts?: MachineAlerts;
    }
  | { ok: false; error: string };

/** No sessions: one list shared by every machine without them. */
export const NO_SESSIONS: readonly SessionMark[] = Object.freeze([]);
/** No alerts: one list shared by every machine without them. */
export const NO_CONTAINER_ALERTS: readonly ContainerAlert[] = Object.freeze([]);
export const NO_FAILING_DISKS: readonly FailingDisk[] = Object.freeze([]);

/** A machine as the board first lists it: not observed yet, no overview. */
export function newMachine(init: {
  name: string;
  origin: Origin;
  location: string;
  firstSeen: number;
}): Machine {
  // One object literal with every field (no spread): all machines share one hidden class,
  // which keeps the loops over 10,000 of them fast (the spread made them 10x slower).
  return {
    name: init.name,
    origin: init.origin,
    location: init.location,
    firstSeen: init.firstSeen,
    state: 'down',
    lastSeen: null,
    error: init.origin === 'configured' ? 'not polled yet' : null,
    slot: null,
    headRoom: 0,
    overviewLength: 0,
    metrics: null,
    observed: false,
    intervalMs: null,
    late: false,
    verified: false,
    silencedUntil: null,
    coveredUntil: null,
    board: null,
    lastBellAt: null,
    sessions: NO_SESSIONS,
    heldSessions: NO_SESSIONS,
    acks: null,
    queued: 0,
    containersSeen: null,
    containerAlerts: NO_CONTAINER_ALERTS,
    failingDisks: NO_FAILING_DISKS,
    agent: null,
    labels: NO_LABELS,
    boardLabels: NO_LABELS,
    agentLabels: NO_LABELS,
    updateAvailable: false,
    bytes: null,
  };
}

/** When notifications for `m` are silenced until, its own silence or a selector's: the later. */
export function silenceEnd(m: Readonly<Machine>): number | null {
  const own = m.silencedUntil;
  const covered = m.coveredUntil;
  if (own === null) return covered;
  return covered === null || own >= covered ? own : covered;
}

/** silenceEnd as the records show it (ISO 8601), or null. */
export function silencedUntilText(m: Readonly<Machine>): string | null {
  const end = silenceEnd(m);
  return end === null ? null : new Date(end).toISOString();
}
