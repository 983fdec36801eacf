import type { CheckChange } from '../checks/check-book.js';
import type { Rule } from './config.js';
import type { NotifyEvent } from './event.js';
import type { ChannelBatch } from './rule-engine.js';

/**
 * Whether a change of a check is worth a message: going down (also from unknown: a check found
 * down), coming up after a down, and a new certificate. Changes to and from unknown are not
 * (a board that starts learns every check's state again).
 */
function announced(change: CheckChange): boolean {
  if (change.cert_changed !== undefined) return true;
  if (change.state === 'down') return true;
  return change.state === 'up' && change.previous === 'down';
}

/** The `check` event of a change. */
export function checkEvent(change: CheckChange): NotifyEvent {
  const e: NotifyEvent = {
    event: 'check',
    machine: '',
    at: new Date(change.at).toISOString(),
    check: change.check,
    state: change.state,
    previous: change.previous,
    runners: change.runners.map((r) => ({ machine: r.machine, detail: r.detail })),
  };
  if (change.cert_changed !== undefined) e.cert_changed = change.cert_changed;
  return e;
}

/**
 * What a change of a check fires, by channel: rules with `events: [check]` whose `checks:` globs
 * name it. Silences do not apply (they silence machines; a check is none).
 */
export function checkBatches(
  rules: readonly Rule[],
  change: CheckChange,
): Map<string, ChannelBatch> {
  const out = new Map<string, ChannelBatch>();
  if (!announced(change)) return out;
  for (const rule of rules) {
    if (!rule.events.has('check') || !rule.checkMatches(change.check)) continue;
    for (const channel of rule.channels) {
      if (out.has(channel)) continue;
      out.set(channel, { events: [checkEvent(change)], silenced: [] });
    }
  }
  return out;
}
