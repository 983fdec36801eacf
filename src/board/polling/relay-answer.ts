import { tooDeepAt } from '../../shared/json-depth.js';

/** What the board makes of an agent's answer to a relayed action. */
export type RelayAnswer =
  | { kind: 'answer'; status: number; body: unknown }
  | { kind: 'unreachable'; error: string };

/**
 * Checks an agent's answer before the board passes it through: a status no HTTP server should
 * send (Node's parser takes 100-999; only 200-599 is a final answer a client can be given) or a
 * body that is not JSON is the agent's fault, a 502 for the caller, never the board's 500.
 */
export function relayAnswer(status: number, text: string): RelayAnswer {
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    return {
      kind: 'unreachable',
      error: `the agent answered with HTTP status ${status}, which is not a valid final status (200-599)`,
    };
  }
  if (tooDeepAt(text) >= 0) {
    return {
      kind: 'unreachable',
      error: `the agent's answer (HTTP ${status}) is nested too deeply`,
    };
  }
  try {
    return { kind: 'answer', status, body: JSON.parse(text) };
  } catch {
    return { kind: 'unreachable', error: `the agent's answer (HTTP ${status}) is not JSON` };
  }
}
