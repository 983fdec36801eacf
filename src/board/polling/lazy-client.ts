import type { AgentClient } from '../domain/agent-client.js';

/**
 * The agent client of the board's own thread (relays, and polls while no poller runs), with
 * undici loaded at its first call: ~6 MB of heap a board that relays nothing does not need.
 */
export function lazyAgentClient(options: { connectTimeoutMs: number }): AgentClient {
  let loading: Promise<AgentClient> | null = null;
  const client = (): Promise<AgentClient> => {
    loading ??= import('./agent-client.js')
      .then((m) => m.createAgentClient(options))
      .catch((error: unknown) => {
        loading = null;
        throw error;
      });
    return loading;
  };
  return {
    overview: async (target, timeoutMs) => (await client()).overview(target, timeoutMs),
    relay: async (target, what, action, timeoutMs) =>
      (await client()).relay(target, what, action, timeoutMs),
    requestUpdate: async (target, timeoutMs) => (await client()).requestUpdate(target, timeoutMs),
    handChecks: async (target, checks, timeoutMs) =>
      (await client()).handChecks(target, checks, timeoutMs),
    close: async () => {
      if (loading !== null) await (await loading.catch(() => null))?.close();
    },
  };
}
