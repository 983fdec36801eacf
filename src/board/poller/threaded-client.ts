import { Worker } from 'node:worker_threads';
import type { AgentClient, AgentTarget, RelayOutcome } from '../agent-client.js';
import type { Observation } from '../domain/machine.js';
import type { PollAnswer, PollerOptions, PollRequest } from './protocol.js';

const WORKER_URL = new URL('./poll-worker.js', import.meta.url);
/** Answers handed over per turn of the event loop (≈ 2–3 ms of the board's work at 10,000). */
const ANSWERS_PER_TURN = 64;

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
  /** Answers received and not yet handed over (from `taken` on). */
  private inbox: PollAnswer[] = [];
  private taken = 0;
  private draining = false;

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
    worker.on('message', (answers: PollAnswer[]) => {
      for (const answer of answers) this.inbox.push(answer);
      if (!this.draining) {
        this.draining = true;
        setImmediate(this.drain);
      }
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

  /**
   * Hands over up to ANSWERS_PER_TURN answers, then lets the event loop turn: answers come in
   * bursts of hundreds, and each costs the board tens of µs (the machine's update and its
   * record), so a burst taken whole would hold a GET up for tens of ms.
   */
  private readonly drain = (): void => {
    const end = Math.min(this.inbox.length, this.taken + ANSWERS_PER_TURN);
    for (; this.taken < end; this.taken += 1) {
      const answer = this.inbox[this.taken];
      if (answer === undefined) continue;
      const resolve = this.pending.get(answer.id);
      if (resolve === undefined) continue;
      this.pending.delete(answer.id);
      resolve(
        answer.ok
          ? { ok: true, prepared: answer.prepared, latencyMs: answer.latencyMs }
          : { ok: false, error: answer.error },
      );
    }
    if (this.taken < this.inbox.length) {
      setImmediate(this.drain);
      return;
    }
    this.inbox = [];
    this.taken = 0;
    this.draining = false;
  };

  private failAll(error: string): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const resolve of waiting) resolve({ ok: false, error });
  }
}
