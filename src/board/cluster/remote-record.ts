import type { Machine } from '../domain/machine.js';
import type { MachineMetrics, SessionMark } from '../domain/metrics.js';
import type { Registry } from '../domain/registry.js';

/** What another board observed of a machine, from the record it published. */
export interface RemoteObservation {
  up: boolean;
  error: string | null;
  lastSeen: number | null;
  /** The overview as text, and what the publishing board took from it (not parsed again). */
  overviewJson: string;
  metrics: MachineMetrics;
  sessions: SessionMark[];
  location: string;
  verified: boolean;
  board: string;
}

/**
 * A record another board published (it polled the machine or took its report): the same
 * observe path as a poll or a report, then the other board's time of the observation and its id.
 */
export function observeRemote(
  registry: Registry,
  machine: Machine,
  remote: RemoteObservation,
): void {
  registry.observe(
    machine,
    remote.up
      ? {
          ok: true,
          prepared: {
            json: remote.overviewJson,
            metrics: remote.metrics,
            sessions: remote.sessions,
          },
          location: remote.location,
          verified: remote.verified,
          intervalMs: machine.intervalMs,
        }
      : { ok: false, error: remote.error ?? 'down' },
    true,
  );
  machine.lastSeen = remote.lastSeen;
  machine.board = remote.board;
}
