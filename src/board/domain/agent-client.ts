import type { HandedChecks } from '../../shared/checks/wire.js';
import type { Observation } from './machine.js';

/** Where and how to reach one agent. */
export interface AgentTarget {
  url: string;
  key: string | null;
  /** PEM of the CA trusted for an https URL; null or absent: the system's CAs. */
  ca?: string | null;
}

/** What came back from relaying an action. */
export type RelayOutcome =
  | { kind: 'answer'; status: number; body: unknown }
  | { kind: 'unreachable'; error: string }
  | { kind: 'timeout'; error: string };

/** How the board talks to agents; the domain sees only this (polling/ implements it). */
export interface AgentClient {
  overview(target: AgentTarget, timeoutMs: number): Promise<Observation>;
  relay(
    target: AgentTarget,
    what: string,
    action: string,
    timeoutMs: number,
  ): Promise<RelayOutcome>;
  /** Hands the agent an update from the board (its POST /api/update). */
  requestUpdate(target: AgentTarget, timeoutMs: number): Promise<RelayOutcome>;
  /** Hands the agent the checks it runs (its PUT /api/checks). */
  handChecks(target: AgentTarget, checks: HandedChecks, timeoutMs: number): Promise<RelayOutcome>;
  close(): Promise<void>;
}
