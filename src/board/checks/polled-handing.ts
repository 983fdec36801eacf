import type { Clock } from '../../shared/clock.js';
import type { Labels } from '../../shared/labels.js';
import type { AgentClient, AgentTarget } from '../domain/agent-client.js';
import { type CheckHanding, needsHanding } from './handing.js';

/** After a hand-over failed, the polls of this long do not try again (an older agent says 404). */
export const HAND_RETRY_MS = 30_000;

export interface PolledHandingDeps {
  handing: CheckHanding;
  /** A polled machine's board labels; undefined: not on this board. */
  labels: (name: string) => Labels | undefined;
  /** Where a configured machine's agent is and its key; null: not a configured machine. */
  target: (name: string) => AgentTarget | null;
  client: AgentClient;
  timeoutMs: () => number;
  clock: Clock;
  /** A hand-over failed (the first of a run of failures): what the agent said, secret-free. */
  failed: (name: string, detail: string) => void;
}

/**
 * Polled machines' checks: after a poll whose overview shows another version than the board
 * would hand, the board PUTs the checks to the agent (with the machine's key), in the
 * background, one at a time per machine; a failure is tried again at a later poll.
 */
export class PolledHanding {
  private readonly inFlight = new Set<string>();
  private readonly failedAt = new Map<string, number>();

  constructor(private readonly deps: PolledHandingDeps) {}

  /** A configured machine answered its poll; its overview says it was last handed `reported`. */
  polled(name: string, reported: string | undefined): void {
    if (this.inFlight.has(name)) return;
    const labels = this.deps.labels(name);
    if (labels === undefined) return;
    const handed = this.deps.handing.forMachine(name, labels);
    if (!needsHanding(reported, handed)) {
      this.failedAt.delete(name);
      return;
    }
    const now = this.deps.clock.now();
    const failed = this.failedAt.get(name);
    if (failed !== undefined && now - failed < HAND_RETRY_MS) return;
    const target = this.deps.target(name);
    if (target === null) return;
    this.inFlight.add(name);
    this.deps.client
      .handChecks(target, handed, this.deps.timeoutMs())
      .then(
        (outcome) => {
          if (outcome.kind === 'answer' && outcome.status >= 200 && outcome.status < 300) {
            this.failedAt.delete(name);
            return;
          }
          const detail =
            outcome.kind === 'answer' ? `the agent answered ${outcome.status}` : outcome.error;
          this.fail(name, detail);
        },
        (error: unknown) => this.fail(name, error instanceof Error ? error.message : String(error)),
      )
      .finally(() => this.inFlight.delete(name));
  }

  private fail(name: string, detail: string): void {
    if (!this.failedAt.has(name)) this.deps.failed(name, detail);
    this.failedAt.set(name, this.deps.clock.now());
  }
}
