import type { HandedChecks } from '../../shared/checks/wire.js';
import type { Clock } from '../../shared/clock.js';
import type { KeyProofCheck } from '../../shared/wire/key-proof.js';
import type { ActionQueue } from './action-queue.js';
import type { AgentClient } from './agent-client.js';
import type { Journal } from './journal.js';
import type { EnrolledKeys } from './machine-keys.js';
import type { Registry } from './registry.js';
import type { DomainSettings } from './settings.js';

/** What the Board is built from (src/board/wiring/build-domain.ts gives it). */
export interface BoardDeps {
  settings: DomainSettings;
  clock: Clock;
  client: AgentClient;
  registry: Registry;
  queue: ActionQueue;
  journal: Journal;
  /**
   * Makes the set of announced identities durable. The board calls it on its own clock (after
   * each sweep) and before it acknowledges an action queued for a machine, never in a report.
   */
  persistIdentities?: () => Promise<void>;
  /**
   * Work the board does on its own failed: a change-set listener, or a journal entry written
   * behind an answer. It is reported; the board goes on.
   */
  onError?: (error: unknown) => void;
  /**
   * Whether this board polls the machine (of several boards on one store, each polls its share;
   * see src/board/cluster/owners.ts). Absent: it polls every configured machine.
   */
  owns?: (name: string) => boolean;
  /** A machine was forgotten here (of several boards: the others are told). */
  forgotten?: (name: string, revoked: boolean) => Promise<void>;
  /** Machines added from the board, with their keys (beside board.yaml's announced_keys). */
  enrollments?: EnrolledKeys;
  /** Key proofs accepted per name (the identity snapshot keeps their times). Absent: a new check. */
  keyProofs?: KeyProofCheck;
  /** The update from the board queued for the machine, handed in its report's answer. */
  handOver?: (
    name: string,
  ) =>
    | { id: string; requested_at: string }
    | undefined
    | Promise<{ id: string; requested_at: string } | undefined>;
  /**
   * The checks handed in the answer to `name`'s report, which says it was last handed
   * `version` (absent: its agent does not say): undefined when it runs what it should.
   */
  handChecks?: (name: string, version: string | undefined) => HandedChecks | undefined;
  /** A configured machine was polled; its overview says it was last handed `version`. */
  polledChecks?: (name: string, version: string | undefined) => void;
}
