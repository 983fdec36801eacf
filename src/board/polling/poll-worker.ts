import { parentPort, workerData } from 'node:worker_threads';
import { prepareOverview } from '../domain/metrics.js';
import { ownBytes } from '../view/machine-record.js';
import { createAgentClient } from './agent-client.js';
import type { PollAnswer, PollerOptions, PollRequest } from './poller-protocol.js';

/**
 * The poller thread: polls agents for the board's sweeps on the second core, and sends back
 * what the board keeps of each overview (its text, metrics and sessions). The garbage of
 * 10,000 HTTP exchanges a sweep is collected here, not in the thread that answers GETs.
 */
const options = workerData as PollerOptions;
const client = createAgentClient(options.client);
const port = parentPort;
if (port === null) throw new Error('poll-worker must run as a worker thread');
// Only an error's message goes back to the board: a stack trace for each of the thousands of
// refused and timed-out polls of a sweep was ~8 % of this thread's time (profiled).
Error.stackTraceLimit = 0;

/** Answers not yet sent: sent together once per turn of this thread's loop (one message). */
let outbox: PollAnswer[] = [];
function send(answer: PollAnswer): void {
  outbox.push(answer);
  if (outbox.length === 1) {
    setImmediate(() => {
      const batch = outbox;
      outbox = [];
      // The overviews' bytes are moved, not copied (each has an ArrayBuffer of its own).
      const moved: ArrayBuffer[] = [];
      for (const a of batch) {
        if (a.ok && typeof a.prepared.json !== 'string')
          moved.push(a.prepared.json.buffer as ArrayBuffer);
      }
      port?.postMessage(batch, moved);
    });
  }
}

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
            prepared: {
              ...prepareOverview(observation.overview, json, latencyMs),
              json: observation.jsonBytes ?? ownBytes(json),
            },
          };
        } else {
          answer = {
            id: message.id,
            ok: false,
            latencyMs,
            error: observation.ok ? 'no overview' : observation.error,
          };
        }
        send(answer);
      },
      (error: unknown) => {
        const detail = error instanceof Error ? error.message : String(error);
        send({ id: message.id, ok: false, latencyMs: 0, error: `poll failed: ${detail}` });
      },
    );
});
