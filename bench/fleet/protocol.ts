/** The messages between the bench (parent) and the fleet simulator (child, over IPC). */

export type MachineKind = 'ok' | 'slow' | 'black-hole' | 'refusing';

/** One simulated polled agent, as the board's config needs it. */
export interface SimMachine {
  name: string;
  url: string;
  key: string;
  kind: MachineKind;
}

export interface ServeRequest {
  type: 'serve';
  machines: number;
  blackHoleShare: number;
  refusingShare: number;
  slowShare: number;
  /** How long a slow machine takes to answer: uniform in [min, max] ms. */
  slowMs: [number, number];
  seed: number;
  /** Each overview carries 8 labels (bench/fleet/labels.ts). */
  labels?: boolean;
}

export interface AnnounceRequest {
  type: 'announce';
  board: string;
  token: string;
  /** How many distinct announcing machines take turns. */
  machines: number;
  /** Reports per second offered (open loop). */
  rate: number;
  durationMs: number;
  /** Reports waiting for an answer at most; past it, a tick's reports are counted as skipped. */
  maxInFlight: number;
}

/** Agents reporting over TLS, each on a connection it keeps (bench/fleet/tls-reporters.ts). */
export interface TlsReportRequest {
  type: 'tls-report';
  /** https://… */
  board: string;
  token: string;
  /** PEM the generator trusts for the server's certificate. */
  ca: string;
  machines: number;
  intervalMs: number;
  /** Agents join evenly over this long (each join is a handshake). */
  rampMs: number;
  /** The window measured, starting `settleIntervals` intervals after the last join (tls-reporters.ts). */
  measureMs: number;
  /** Intervals between the last join and the window (SETTLE_INTERVALS when not given). */
  settleIntervals?: number;
}

export interface StatsRequest {
  type: 'stats';
}

export type SimRequest = (ServeRequest | AnnounceRequest | TlsReportRequest | StatsRequest) & {
  id: number;
};

export interface ServeAnswer {
  type: 'serve';
  machines: SimMachine[];
  /** How many listening sockets the simulator holds. */
  listeners: number;
}

export interface AnnounceAnswer {
  type: 'announce';
  offered: number;
  sent: number;
  ok: number;
  failed: number;
  /** Reports not sent because maxInFlight were already waiting (the board fell behind). */
  skipped: number;
  statuses: Record<string, number>;
  errors: Record<string, number>;
  elapsedMs: number;
  latencyMs: { p50: number; p99: number; max: number };
}

/** What the window of a TlsReportRequest saw. */
export interface TlsReportAnswer {
  type: 'tls-report';
  sent: number;
  ok: number;
  failed: number;
  /** Reports not sent because the agent's last was still unanswered. */
  skipped: number;
  statuses: Record<string, number>;
  errors: Record<string, number>;
  /** TLS handshakes completed in the window (a connection opened again). */
  handshakes: number;
  /** ... and over the whole run, the joins included. */
  handshakesAll: number;
  /** Idle connections the server closed in the window. */
  serverCloses: number;
  windowMs: number;
  /** When the window was to start and when it did (ms after the generator started). */
  plannedStartMs: number;
  windowStartMs: number;
  /** Agents with an accepted report, and when the last of them joined (NaN: not all did). */
  joined: number;
  joinedMs: number;
  /** The generator's longest lag behind its schedule in the window, ms. */
  lagMs: number;
  latencyMs: { p50: number; p99: number; max: number };
}

export interface StatsAnswer {
  type: 'stats';
  polls: Record<MachineKind, number>;
  relays: number;
  unauthorised: number;
}

export type SimAnswer = (
  | ServeAnswer
  | AnnounceAnswer
  | TlsReportAnswer
  | StatsAnswer
  | { type: 'error'; message: string }
) & {
  id: number;
};

/** The loopback block announcing machines send from (127.20.x.y). */
export const ANNOUNCER_BLOCK = 20;

/**
 * How many intervals after the last join (planned: the end of the ramp) a TLS report window
 * starts unless asked otherwise (tls-reporters.ts): the joins' handshakes and their backlog are
 * over by then.
 */
export const SETTLE_INTERVALS = 2;

/**
 * How many intervals past its planned start a TLS report window waits for the last join, at
 * most (tls-reporters.ts); the bench's time-out for the whole run allows for it.
 */
export const JOIN_GRACE_INTERVALS = 4;

/** The machine names the bench uses: m00001…, a00001… (announced). */
export function machineName(prefix: string, index: number): string {
  return `${prefix}${String(index + 1).padStart(5, '0')}`;
}

/** A loopback address of its own for machine `index` in block `block` (127.block.x.y). */
export function loopbackAddress(block: number, index: number): string {
  return `127.${block}.${Math.floor(index / 250)}.${(index % 250) + 1}`;
}
