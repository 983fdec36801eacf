import type { Logger } from '../../shared/logger.js';
import type { BoardSettings } from '../config/config.js';
import { casChanged } from '../config/settings-diff.js';
import type { AgentClient } from '../domain/agent-client.js';
import { lazyAgentClient } from '../polling/lazy-client.js';
import { SwitchableClient } from '../polling/switchable-client.js';
import { pollerHeapMb, pollerThreads, ThreadedClient } from '../polling/threaded-client.js';

/** The client polls and relays go through, and how a reload replaces its pollers. */
export interface Polling {
  readonly client: SwitchableClient;
  /**
   * New CAs need new connection pools; a fleet grown past the pollers' heap, pollers with more
   * room (the running ones finish their polls in flight, then close). A client given: kept.
   */
  reload(previous: BoardSettings, next: BoardSettings): void;
}

/** Builds the poll client: poller threads sized for the fleet, or the client given (tests). */
export function buildPolling(
  given: AgentClient | undefined,
  settings: BoardSettings,
  logger: Logger,
): Polling {
  // Polls run in poller threads (see pollerThreads); relays on this one.
  // The poller's heap ceiling the running client was started with (see pollerHeapMb).
  let pollerHeap = 0;
  const newClient = (s: BoardSettings): AgentClient => {
    const options = { connectTimeoutMs: Math.min(s.pollTimeoutMs, 10_000) };
    pollerHeap = pollerHeapMb(s.machines.length);
    return new ThreadedClient(
      { client: options, heapMb: pollerHeap },
      lazyAgentClient(options),
      (error) => logger.error({ err: error }, 'poller failed'),
      pollerThreads(),
      // Nothing configured to poll: no poller thread until there is (announced machines only).
      s.machines.length === 0,
    );
  };
  const client = new SwitchableClient(given ?? newClient(settings));
  return {
    client,
    reload(previous, next) {
      const outgrown = pollerHeapMb(next.machines.length) > pollerHeap;
      if (given === undefined && (casChanged(previous, next) || outgrown)) {
        const was = pollerHeap;
        client.switchTo(newClient(next));
        if (outgrown)
          logger.info(
            { machines: next.machines.length, heapMb: pollerHeap, wasMb: was },
            'new pollers with room for the grown fleet (its kept connections are made again)',
          );
      }
    },
  };
}
