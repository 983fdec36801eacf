import { checkResultsOf } from '../../shared/checks/results-of.js';
import type { CheckResult } from '../../shared/checks/wire.js';
import type { Labels } from '../../shared/labels.js';
import type { AgentSelf } from '../domain/agent-self.js';
import type { Machine, MachineAlerts } from '../domain/machine.js';
import { labelsOf } from '../domain/machine-labels.js';
import type { ContainerAlert, FailingDisk } from '../domain/machine-now.js';
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
  /** The alerts the publishing board holds (absent: a board of an older version, which kept none). */
  alerts?: MachineAlerts;
  /** What the machine said of its agent (absent: a board of an older version). */
  agent?: AgentSelf | null;
  /** The labels its agent gave (absent: a board of an older version; the machine keeps its own). */
  labels?: Labels;
  location: string;
  verified: boolean;
  board: string;
}

/**
 * The check results a record's overview carries, for this board's check book (each board
 * follows every check); the text is parsed only when it names checks at all.
 */
function remoteChecks(overviewJson: string): CheckResult[] | null {
  if (!overviewJson.includes('"checks"')) return null;
  try {
    return checkResultsOf(JSON.parse(overviewJson) as Record<string, unknown>);
  } catch {
    return null;
  }
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
            ...(remote.agent === undefined ? {} : { agent: remote.agent }),
            ...(remote.labels === undefined ? {} : { labels: remote.labels }),
            checks: remoteChecks(remote.overviewJson),
          },
          location: remote.location,
          verified: remote.verified,
          intervalMs: machine.intervalMs,
          ...(remote.alerts === undefined ? {} : { alerts: remote.alerts }),
        }
      : { ok: false, error: remote.error ?? 'down' },
    true,
  );
  machine.lastSeen = remote.lastSeen;
  machine.board = remote.board;
}

/**
 * The alerts a record's meta carries (`a`: containers, `d`: disks), checked loosely as the rest
 * of it is (boards trust each other); undefined when it carries none (an older board).
 */
export function alertsOf(containers: unknown, disks: unknown): MachineAlerts | undefined {
  if (!Array.isArray(containers) || !Array.isArray(disks)) return undefined;
  const a: ContainerAlert[] = [];
  for (const x of containers as Partial<ContainerAlert>[]) {
    if (typeof x?.name !== 'string' || typeof x.since !== 'number') continue;
    if (x.problem !== 'stopped' && x.problem !== 'unhealthy') continue;
    a.push({
      name: x.name,
      problem: x.problem,
      since: x.since,
      goneAt: typeof x.goneAt === 'number' ? x.goneAt : null,
    });
  }
  const d: FailingDisk[] = [];
  for (const x of disks as Partial<FailingDisk>[])
    if (typeof x?.device === 'string' && typeof x.since === 'number')
      d.push({ device: x.device, since: x.since });
  return { containers: a, disks: d };
}

/**
 * The agent labels a record's meta carries (`l`), each pair checked by the label rule as an
 * overview's are; undefined when it carries none (a board of an older version).
 */
export function agentLabelsOf(value: unknown): Labels | undefined {
  if (value === undefined) return undefined;
  return labelsOf({ labels: value });
}
