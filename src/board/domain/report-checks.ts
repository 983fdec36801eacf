import type { Clock } from '../../shared/clock.js';
import type { HandedAction } from '../../shared/wire/action.js';
import type { KeyProofCheck } from '../../shared/wire/key-proof.js';
import type { Report } from '../../shared/wire/report.js';
import type { Who } from '../schemas.js';
import type { ActionQueue } from './action-queue.js';
import type { Answer } from './answer.js';
import type { JournalPolicy } from './journal-policy.js';
import type { EnrolledKeys, MachineKeys } from './machine-keys.js';
import { targetOf } from './outcome.js';
import type { DomainSettings } from './settings.js';

/** What the checks of a report read: the board's keys and journal policy, and its deps. */
export interface ReportGate {
  readonly keys: MachineKeys;
  readonly keyProofs: KeyProofCheck;
  readonly notes: JournalPolicy;
  /** The board's own (reconfigure replaces its settings in place). */
  readonly deps: {
    readonly settings: DomainSettings;
    readonly clock: Clock;
    readonly enrollments?: EnrolledKeys;
  };
}

/**
 * Whether a report for its name is refused before the board looks at what it says: a revoked
 * name, a name without a key where only keyed names report, a spelling of a keyed name in
 * another case, or a key it does not prove. The refusal is journaled; null: it goes on.
 * `key` is the key the board holds for the name.
 */
export async function refusedReport(
  gate: ReportGate,
  who: Who,
  report: Report,
  key: string | undefined,
): Promise<Answer | null> {
  const { name } = report;
  const { notes } = gate;
  const { settings, clock, enrollments } = gate.deps;
  if (key === undefined && enrollments?.revoked(name) === true) {
    const detail = `'${name}' was revoked on this board; add it again from the board before it reports`;
    const refused = await notes.refuse(who, 'report', name, 403, detail);
    // The stable signal for the agent to stop honouring its board key (the detail is prose).
    return { ...refused, body: { ...refused.body, revoked: true } };
  }
  if (key === undefined && settings.announcedKeysOnly) {
    const detail = `'${name}' has no key on this board (announced_keys, or added from the board), and this board takes reports only from machines it holds a key for (announced_keys_only)`;
    return notes.refuse(who, 'report', name, 403, detail);
  }
  const variant = key === undefined ? gate.keys.keyedVariant(name) : undefined;
  if (variant !== undefined) {
    const detail = `'${name}' differs only in case from '${variant}', which holds a key on this board; names are unique without regard to case`;
    return notes.refuse(who, 'report', name, 409, detail);
  }
  const unproved = key === undefined ? null : gate.keyProofs.problem(key, report, clock.now());
  if (unproved !== null) {
    // The board would relay this machine's key to the reported location: only believe a
    // location reported by someone who holds the key.
    const detail = `A report for '${name}' must prove it holds the key the board keeps for it (key_proof): ${unproved}`;
    return notes.refuse(who, 'report', name, 403, detail);
  }
  return null;
}

/** The actions queued for `name`, handed over in its report's answer (journaled once each). */
export async function handOver(
  queue: ActionQueue,
  notes: JournalPolicy,
  who: Who,
  name: string,
): Promise<HandedAction[]> {
  const actions: HandedAction[] = [];
  if (queue.count(name) === 0) return actions;
  for (const a of queue.forMachine(name)) {
    if (await queue.markDelivered(a.id))
      await notes.note(who, 'do', targetOf(a), 'delivered', null, `handed over as ${a.id}`);
    actions.push({
      id: a.id,
      what: a.what,
      action: a.action,
      requested_at: new Date(a.requestedAt).toISOString(),
    });
  }
  return actions;
}
