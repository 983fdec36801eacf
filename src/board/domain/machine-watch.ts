import { SMART_MAX } from '../../shared/wire/machine-now-limits.js';
import type { ChangeCollector } from './change-set.js';
import {
  type Machine,
  type MachineAlerts,
  NO_CONTAINER_ALERTS,
  NO_FAILING_DISKS,
} from './machine.js';
import type { ContainerAlert, ContainerProblem, ContainerUse, FailingDisk } from './machine-now.js';

/** A container no longer listed keeps its alert this long, then the alert ends quietly. */
export const UNLISTED_KEEP_MS = 24 * 3600_000;
/** Container alerts a machine holds at most: a bound on what one machine makes the board keep. */
export const CONTAINER_ALERTS_MAX = 100;

/** What a container has against it now: not running, or running and unhealthy. */
export function problemOf(c: ContainerUse): ContainerProblem | null {
  if (c.state !== 'running') return 'stopped';
  return c.health === 'unhealthy' ? 'unhealthy' : null;
}

/**
 * After a machine's metrics took a new overview: opens and ends its containers' and disks'
 * episodes and tells `changes`. A container's episode opens when one that was running in the
 * list before stops (or is no longer listed) or turns unhealthy, and ends when it runs and is
 * not unhealthy again; one never seen running opens none. A disk's opens when its health check
 * fails (first seen failing too) and ends when it passes. A list the overview did not carry
 * (no source, or its read failed) changes nothing: nothing is known. Another board's record
 * brings its alerts (`adopted`): they are taken as they are, so every board shows the same.
 */
export function watchMachine(
  m: Machine,
  now: number,
  changes: ChangeCollector,
  adopted?: MachineAlerts,
): void {
  const list = m.metrics?.containers ?? null;
  if (adopted !== undefined) {
    adoptContainers(m, adopted.containers, list, now, changes);
    adoptDisks(m, adopted.disks, now, changes);
  } else {
    if (list !== null) watchContainers(m, list, now, changes);
    watchDisks(m, now, changes);
  }
  if (list !== null) m.containersSeen = seen(m.containersSeen, list, m.metrics?.containersPartial);
}

/**
 * What the next list is compared with: this one; of a partial list, this one and the
 * containers it left out as they were last seen (so one of them that stopped meanwhile is
 * still compared with its running self when a whole list comes).
 */
function seen(
  before: readonly ContainerUse[] | null,
  list: readonly ContainerUse[],
  partial: boolean | undefined,
): readonly ContainerUse[] {
  if (partial !== true || before === null || before === list) return list;
  const listed = new Set<string>();
  for (const c of list) listed.add(c.name);
  const left = before.filter((c) => !listed.has(c.name));
  return left.length === 0 ? list : [...list, ...left];
}

function watchContainers(
  m: Machine,
  list: readonly ContainerUse[],
  now: number,
  changes: ChangeCollector,
): void {
  const before = m.containersSeen;
  // The same containers in the same states (kept-containers.ts keeps the list): nothing opens
  // or ends, but an alert of a container gone long ago.
  if (list === before || (before === null && m.containerAlerts.length === 0)) {
    if (m.containerAlerts.length > 0) expire(m, now, changes);
    return;
  }
  const tell = teller(m, now, changes);
  const prev = new Map<string, ContainerUse>();
  for (const p of before ?? []) prev.set(p.name, p);
  const open = new Map<string, ContainerAlert>();
  for (const a of m.containerAlerts) open.set(a.name, a);
  for (const c of list) {
    const problem = problemOf(c);
    const a = open.get(c.name);
    if (a !== undefined) {
      if (problem === null) {
        open.delete(c.name);
        tell(c.name, null, a.problem, a.since, c.state);
      } else if (problem !== a.problem || a.goneAt !== null) {
        open.set(c.name, { ...a, problem, goneAt: null });
        if (problem !== a.problem) tell(c.name, problem, a.problem, a.since, c.state);
      }
      continue;
    }
    const p = prev.get(c.name);
    if (problem === null || p === undefined || p.state !== 'running') continue;
    if (problem === 'unhealthy' && p.health === 'unhealthy') continue;
    if (open.size >= CONTAINER_ALERTS_MAX) continue;
    open.set(c.name, { name: c.name, problem, since: now, goneAt: null });
    tell(c.name, problem, null, now, c.state);
  }
  // A list with some left out (containers_omitted) says nothing of those not in it.
  if (before !== null && m.metrics?.containersPartial !== true) {
    const listed = new Set<string>();
    for (const c of list) listed.add(c.name);
    for (const p of before) {
      if (listed.has(p.name)) continue;
      const a = open.get(p.name);
      if (a === undefined) {
        if (p.state !== 'running' || open.size >= CONTAINER_ALERTS_MAX) continue;
        open.set(p.name, { name: p.name, problem: 'stopped', since: now, goneAt: now });
        tell(p.name, 'stopped', null, now, null);
      } else if (a.goneAt === null) {
        open.set(p.name, { ...a, problem: 'stopped', goneAt: now });
        if (a.problem !== 'stopped') tell(p.name, 'stopped', a.problem, a.since, null);
      }
    }
  }
  m.containerAlerts = open.size === 0 ? NO_CONTAINER_ALERTS : [...open.values()];
  if (m.containerAlerts.length > 0) expire(m, now, changes);
}

/** Ends the alerts of containers no longer listed for UNLISTED_KEEP_MS (removed for good). */
function expire(m: Machine, now: number, changes: ChangeCollector): void {
  let kept: ContainerAlert[] | null = null;
  const alerts = m.containerAlerts;
  for (let i = 0; i < alerts.length; i += 1) {
    const a = alerts[i] as ContainerAlert;
    if (a.goneAt === null || now - a.goneAt < UNLISTED_KEEP_MS) {
      kept?.push(a);
      continue;
    }
    kept ??= alerts.slice(0, i);
    teller(m, now, changes)(a.name, null, a.problem, a.since, null, true);
  }
  if (kept !== null) m.containerAlerts = kept.length === 0 ? NO_CONTAINER_ALERTS : kept;
}

function watchDisks(m: Machine, now: number, changes: ChangeCollector): void {
  const smart = m.metrics?.smart ?? null;
  if (smart === null) return;
  let failing = m.failingDisks;
  for (const d of smart) {
    if (d.passed === null) continue;
    const at = indexOfDisk(failing, d.device);
    if (!d.passed && at < 0 && failing.length < SMART_MAX) {
      failing = [...failing, { device: d.device, since: now }];
      changes.diskHealthChanged({
        name: m.name,
        at: now,
        device: d.device,
        failing: true,
        since: now,
      });
    } else if (d.passed && at >= 0) {
      const f = failing[at] as FailingDisk;
      failing = failing.filter((_, k) => k !== at);
      changes.diskHealthChanged({
        name: m.name,
        at: now,
        device: d.device,
        failing: false,
        since: f.since,
      });
    }
  }
  m.failingDisks = failing.length === 0 ? NO_FAILING_DISKS : failing;
}

function indexOfDisk(failing: readonly FailingDisk[], device: string): number {
  for (let i = 0; i < failing.length; i += 1)
    if ((failing[i] as FailingDisk).device === device) return i;
  return -1;
}

/** Another board's alerts: taken as they are; what opened or ended since is told here too. */
function adoptContainers(
  m: Machine,
  alerts: readonly ContainerAlert[],
  list: readonly ContainerUse[] | null,
  now: number,
  changes: ChangeCollector,
): void {
  const before = m.containerAlerts;
  if (before.length === 0 && alerts.length === 0) return;
  const tell = teller(m, now, changes);
  const stateOf = (name: string) => list?.find((c) => c.name === name) ?? null;
  const held = new Map(before.map((a) => [a.name, a]));
  for (const a of alerts) {
    const b = held.get(a.name);
    held.delete(a.name);
    if (b === undefined || b.problem !== a.problem)
      tell(a.name, a.problem, b?.problem ?? null, a.since, stateOf(a.name)?.state ?? null);
  }
  for (const b of held.values()) {
    const c = stateOf(b.name);
    const recovered = c !== null && problemOf(c) === null;
    tell(b.name, null, b.problem, b.since, c?.state ?? null, !recovered);
  }
  m.containerAlerts = alerts.length === 0 ? NO_CONTAINER_ALERTS : alerts;
}

function adoptDisks(
  m: Machine,
  disks: readonly FailingDisk[],
  now: number,
  changes: ChangeCollector,
): void {
  const before = m.failingDisks;
  if (before.length === 0 && disks.length === 0) return;
  for (const d of disks)
    if (indexOfDisk(before, d.device) < 0)
      changes.diskHealthChanged({
        name: m.name,
        at: now,
        device: d.device,
        failing: true,
        since: d.since,
      });
  for (const b of before)
    if (indexOfDisk(disks, b.device) < 0)
      changes.diskHealthChanged({
        name: m.name,
        at: now,
        device: b.device,
        failing: false,
        since: b.since,
      });
  m.failingDisks = disks.length === 0 ? NO_FAILING_DISKS : disks;
}

/** Tells `changes` of one container's change on machine `m`. */
function teller(m: Machine, now: number, changes: ChangeCollector) {
  return (
    container: string,
    problem: ContainerProblem | null,
    previous: ContainerProblem | null,
    since: number,
    state: string | null,
    gone = false,
  ) =>
    changes.containerChanged({
      name: m.name,
      at: now,
      container,
      problem,
      previous,
      since,
      state,
      ...(gone ? { gone: true } : {}),
    });
}
