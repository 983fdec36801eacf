/** What a rule fired, as the generic webhook lists it (members that do not apply are absent). */
export interface NotifyEvent {
  event:
    | 'down'
    | 'up'
    | 'late'
    | 'bell'
    | 'threshold'
    | 'action_failed'
    | 'container'
    | 'disk_health'
    | 'check'
    | 'test';
  /** The machine it concerns; '' for a check (and a test). */
  machine: string;
  /** ISO 8601: when it happened. */
  at: string;
  state?: 'up' | 'down' | 'unknown';
  previous?: 'up' | 'down' | 'unknown';
  /** ISO 8601: since when the state (or the metric past its limit) holds. */
  since?: string;
  reason?: string;
  location?: string;
  /** The machine on the board (needs public_url). */
  url?: string;
  /** bell */
  session?: string;
  why?: string;
  /** a bell's text, or what the test says */
  message?: string;
  /** threshold */
  metric?: string;
  value?: number;
  limit?: number;
  path?: string;
  /** up: how long the down lasted. */
  duration_s?: number;
  /** A reminder ("still down") rather than the first message. */
  reminder?: number;
  /** action_failed */
  action?: string;
  /** container: its name */
  container?: string;
  /** container: stopped or unhealthy (for a recovery: the problem that ended) */
  problem?: string;
  /** disk_health: the disk, e.g. /dev/sda */
  device?: string;
  /** container, disk_health: the episode ended (running and not unhealthy; passing again). */
  recovered?: boolean;
  /** check: its name */
  check?: string;
  /** check: the runners whose last result failed, and its detail */
  runners?: { machine: string; detail: string }[];
  /** check: a runner saw a certificate not seen before (what changed) */
  cert_changed?: string;
}

/** One message for one channel: everything that fired for it in one sweep. */
export interface OutgoingMessage {
  /** A short title ("Panoptes: 2 down, 1 up"). */
  title: string;
  /** The whole text, one line per event (templates applied). */
  text: string;
  /** The board's public address, or null. */
  boardUrl: string | null;
  events: NotifyEvent[];
}
