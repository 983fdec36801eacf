import { parentPort, workerData } from 'node:worker_threads';
import { createAgentClient } from '../agent-client.js';
import { prepareOverview } from '../domain/metrics.js';
import type { PollAnswer, PollerOptions, PollRequest } from './protocol.js';

/**
 * The poller thread: polls agents for the board's sweeps on the second core, and sends back
 * what the board keeps of each overview (its text, metrics and sessions). The garbage of
 * 10,000 HTTP exchanges a sweep is collected here, not in the thread that answers GETs.
 */
const options = workerData as PollerOptions;
const client = createAgentClient(options.client);
const port = parentPort;
if (port === null) throw new Error('poll-worker must run as a worker thread');

port.on('message', (message: PollRequest | { type: 'close' }) => {
  if (message.type === 'close') {
    void client.close().finally(() => port.close());
    return;
  }
  const began = performance.now();
  void client
    .overview({ url: message.url, key: message.key, ca: message.ca }, message.timeoutMs)
    .then(
      (observation) => {
        const latencyMs = Math.round(performance.now() - began);
        let answer: PollAnswer;
        if (observation.ok && observation.overview !== undefined) {
          const json = observation.json ?? JSON.stringify(observation.overview);
          answer = {
            id: message.id,
            ok: true,
            latencyMs,
            prepared: prepareOverview(observation.overview, json, latencyMs),
          };
        } else {
          answer = {
            id: message.id,
            ok: false,
            latencyMs,
            error: observation.ok ? 'no overview' : observation.error,
          };
        }
        port.postMessage(answer);
      },
      (error: unknown) => {
        const detail = error instanceof Error ? error.message : String(error);
        port.postMessage({
          id: message.id,
          ok: false,
          latencyMs: 0,
          error: `poll failed: ${detail}`,
        } satisfies PollAnswer);
      },
    );
});
