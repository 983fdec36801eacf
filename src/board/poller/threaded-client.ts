import { Worker } from 'node:worker_threads';
import type { AgentClient, AgentTarget, RelayOutcome } from '../agent-client.js';
import type { Observation } from '../domain/machine.js';
import type { PollAnswer, PollerOptions, PollRequest } from './protocol.js';

const WORKER_URL = new URL('./poll-worker.js', import.meta.url);

/**
 * An AgentClient whose polls run in a worker thread (the poller) and whose relays run on the
 * main thread through `relays`. A poller that dies is started again; the polls it had under
 * way fail with a clear error and the next sweep polls those machines again.
 */
export class ThreadedClient implements AgentClient {
  private worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, (o: Observation) => void>();
  private closing = false;

  constructor(
    private readonly options: PollerOptions,
    private readonly relays: AgentClient,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.worker = this.start();
  }

  overview(target: AgentTarget, timeoutMs: number): Promise<Observation> {
    return new Promise((resolve) => {
      const id = this.nextId;
      this.nextId += 1;
      this.pending.set(id, resolve);
      const request: PollRequest = {
        type: 'poll',
        id,
        url: target.url,
        key: target.key,
        ca: target.ca ?? null,
        timeoutMs,
      };
      this.worker.postMessage(request);
    });
  }

  relay(
    target: AgentTarget,
    what: string,
    action: string,
    timeoutMs: number,
  ): Promise<RelayOutcome> {
    return this.relays.relay(target, what, action, timeoutMs);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.worker.postMessage({ type: 'close' });
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    const timer = setTimeout(() => void this.worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
    this.failAll('the board is shutting down');
    await this.relays.close();
  }

  private start(): Worker {
    const worker = new Worker(WORKER_URL, {
      workerData: this.options,
      // The poller's heap only holds polls in flight: kept small, it is collected often on
      // its own core instead of growing with the garbage of each sweep.
      resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 },
    });
    worker.on('message', (answer: PollAnswer) => {
      const resolve = this.pending.get(answer.id);
      if (resolve === undefined) return;
      this.pending.delete(answer.id);
      resolve(
        answer.ok
          ? { ok: true, prepared: answer.prepared, latencyMs: answer.latencyMs }
          : { ok: false, error: answer.error },
      );
    });
    worker.on('error', (error) => this.onError(error));
    worker.on('exit', () => {
      if (this.closing) return;
      this.failAll('the poller restarted');
      this.worker = this.start();
    });
    worker.unref();
    return worker;
  }

  private failAll(error: string): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const resolve of waiting) resolve({ ok: false, error });
  }
}
