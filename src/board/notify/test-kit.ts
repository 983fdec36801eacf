import type { ChangeSet, Transition } from '../domain/change-set.js';
import type { Machine } from '../domain/machine.js';
import { type NotifyConfigFile, type NotifySettings, notifySettings } from './config.js';

/** A change set by hand, for rule tests: only what the test names, the rest empty. */
export function changeSet(
  at: number,
  parts: Partial<Omit<ChangeSet, 'machines'>> & { machines?: Machine[] } = {},
): ChangeSet {
  const machines = parts.machines ?? [];
  return {
    seq: 1,
    at,
    sweepMs: 10,
    transitions: parts.transitions ?? [],
    late: parts.late ?? [],
    bells: parts.bells ?? [],
    actionsFailed: parts.actionsFailed ?? [],
    containers: parts.containers ?? [],
    diskHealth: parts.diskHealth ?? [],
    changed: parts.changed ?? new Set(),
    removed: parts.removed ?? [],
    dropped: 0,
    reports: parts.reports ?? 0,
    machines: () => machines.values(),
    size: machines.length,
  };
}

/** A transition of `name` at `at`. */
export function went(
  name: string,
  at: number,
  state: 'up' | 'down',
  previous: 'up' | 'down' | null,
  reason: string | null = state === 'down' ? 'connection refused' : null,
): Transition {
  return { name, origin: 'configured', at, state, previous, reason };
}

/** Notify settings from a `notify:` section; throws on any problem. */
export function settingsOf(raw: NotifyConfigFile): NotifySettings {
  const problems: { field: string; problem: string }[] = [];
  const s = notifySettings(raw, problems, () => '');
  if (problems.length > 0) throw new Error(JSON.stringify(problems));
  return s;
}
