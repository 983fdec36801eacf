import type { ActionOutcome } from '../api/client.js';
import type { ActionName } from '../api/types.js';

/** A start or stop sent from this page, and what became of it. */
export interface ActionState {
  action: ActionName;
  /** null while the board has not answered yet. */
  outcome: ActionOutcome | null;
  /** The board could not be reached at all (no answer from any machine). */
  unreachable?: true;
}

/** What this page did to one machine: per service, and a failed 'forget'. */
export interface MachineOutcomes {
  services: Readonly<Record<string, ActionState>>;
  forgetProblem: string | null;
}

/** What the confirmation dialog asks about. */
export type ConfirmRequest =
  | {
      kind: 'action';
      machine: string;
      service: string;
      action: ActionName;
      /** The machine's reports did not prove a key: ask a second time. */
      unverified?: boolean;
      /** This is that second question. */
      second?: boolean;
    }
  | { kind: 'forget'; machine: string; revoke?: boolean };

/** Returns a new map where only `machine`'s entry changed (so only its card renders again). */
export function withOutcome(
  all: ReadonlyMap<string, MachineOutcomes>,
  machine: string,
  change: (current: MachineOutcomes) => MachineOutcomes,
): ReadonlyMap<string, MachineOutcomes> {
  const next = new Map(all);
  next.set(machine, change(all.get(machine) ?? { services: {}, forgetProblem: null }));
  return next;
}
