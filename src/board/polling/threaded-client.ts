import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { HandedChecks } from '../../shared/checks/wire.js';
import type { AgentClient, AgentTarget, RelayOutcome } from '../domain/agent-client.js';
import type { Observation } from '../domain/machine.js';
import type { PollAnswer, PollerOptions, PollRequest } from './poller-protocol.js';

const WORKER_URL = new URL('./poll-worker.js', import.meta.url);
/** Answers handed over per turn of the event loop (≈ 2–3 ms of the board's work at 10,000). */
const ANSWERS_PER_TURN = 64;

/**
 * An AgentClient whose polls run in worker threads (the pollers) and whose relays run on the
 * main thread through `relays`. Each agent is always polled by the same poller (chosen by its
 * URL), so its kept-alive connection is found again. A poller that dies is started again; the
 * polls it had under way fail with a clear error and the next sweep polls those machines again.
 * A board with nothing to poll (announced machines only) starts its pollers at their first poll
 * (`lazy`), and so never starts one and saves its V8 heap; a board with machines to
 * poll starts them at once, so that their start (~0.2 s of loading) is not in the first sweep.
 */
export class ThreadedClient implements AgentClient {
  /** The pollers by index; null until its first poll. */
  private readonly workers: (Worker | null)[];
  private nextId = 1;
  /** Polls under way: how to answer each, and which poller has it. */
  private readonly pending = new Map<number, { resolve: (o: Observation) => void; by: number }>();
  private closing = false;
  /** Answers received and not yet handed over (from `taken` on). */
  private inbox: PollAnswer[] = [];
  private taken = 0;
  private draining = false;

  constructor(
    private readonly options: PollerOptions,
    private readonly relays: AgentClient,
    private readonly onError: (error: unknown) => void = () => undefined,
    /** How many pollers (threads); at least 1. */
    threads = 1,
    /** Start each poller at its first poll rather than now. */
    lazy = false,
  ) {
    this.workers = Array.from({ length: Math.max(1, threads) }, (_, i) =>
      lazy ? null : this.start(i),
    );
  }

  /** The old-space ceiling each poller is started with, MiB. */
  get heapMb(): number {
    return this.options.heapMb ?? POLLER_HEAP_MIN_MB;
  }

  /** How many pollers are running (started at their first poll). */
  get started(): number {
    return this.workers.filter((w) => w !== null).length;
  }

  overview(target: AgentTarget, timeoutMs: number): Promise<Observation> {
    return new Promise((resolve) => {
      const id = this.nextId;
      this.nextId += 1;
      const by = pollerOf(target.url, this.workers.length);
      this.pending.set(id, { resolve, by });
      const request: PollRequest = {
        type: 'poll',
        id,
        url: target.url,
        key: target.key,
        ca: target.ca ?? null,
        timeoutMs,
      };
      const worker = this.workers[by] ?? this.start(by);
      this.workers[by] = worker;
      worker.postMessage(request);
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

  requestUpdate(target: AgentTarget, timeoutMs: number): Promise<RelayOutcome> {
    return this.relays.requestUpdate(target, timeoutMs);
  }

  handChecks(target: AgentTarget, checks: HandedChecks, timeoutMs: number): Promise<RelayOutcome> {
    return this.relays.handChecks(target, checks, timeoutMs);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.workers.map(async (worker) => {
        if (worker === null) return;
        worker.postMessage({ type: 'close' });
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        const timer = setTimeout(() => void worker.terminate(), 5000);
        await exited;
        clearTimeout(timer);
      }),
    );
    this.failAll('the board is shutting down', null);
    await this.relays.close();
  }

  private start(index: number): Worker {
    const worker = new Worker(WORKER_URL, {
      workerData: this.options,
      // A poller's heap holds its kept connections and polls in flight: kept small (but room
      // for every machine it polls, pollerHeapMb), it is collected often on its own core
      // instead of growing with the garbage of each sweep.
      resourceLimits: {
        maxOldGenerationSizeMb: this.heapMb,
        maxYoungGenerationSizeMb: 16,
      },
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
      this.failAll('the poller restarted', index);
      this.workers[index] = this.start(index);
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
      const waiting = this.pending.get(answer.id);
      if (waiting === undefined) continue;
      this.pending.delete(answer.id);
      waiting.resolve(
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

  /** Fails the polls under way in poller `by` (null: in all of them). */
  private failAll(error: string, by: number | null): void {
    for (const [id, waiting] of [...this.pending]) {
      if (by !== null && waiting.by !== by) continue;
      this.pending.delete(id);
      waiting.resolve({ ok: false, error });
    }
  }
}

/** The poller of an agent: a stable hash (FNV-1a) of its URL, so its connection is reused. */
export function pollerOf(url: string, pollers: number): number {
  if (pollers <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < url.length; i++) {
    hash ^= url.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % pollers;
}

/** The least old space a poller gets, MiB: room for 10,000 polled machines (see below). */
const POLLER_HEAP_MIN_MB = 128;
/** Machines polled per MiB of a poller's old space: 12.8 KiB each (below). */
const MACHINES_PER_MB = 80;

/**
 * The old-space ceiling of a poller that polls `machines` agents, MiB. A machine's kept
 * connection (undici's Client, its socket, parser and timers) holds ~6–7.5 KiB alive in the
 * poller (heap snapshots at 10,000: 60 MB for 8,002 connections). With a fixed 128 MiB, a
 * poller polling 19,000 answering machines ran out of memory in its second sweep and every
 * other one after (2,048 polls failed each time, and every kept connection was lost; 15,000
 * held). So the ceiling grows with the fleet at 12.8 KiB a machine,
 * about twice what each holds alive, never below 128 MiB (10,240 machines).
 */
export function pollerHeapMb(machines: number): number {
  return Math.max(POLLER_HEAP_MIN_MB, Math.ceil(machines / MACHINES_PER_MB));
}

/**
 * How many pollers a board runs: one per core, at most 2. The main thread only applies what
 * the pollers send (10–40 % of a core while a 10,000-machine sweep runs, profiled), so on 2
 * cores the one poller was the sweep's bottleneck (~90 % busy): a second one took 4–7 % off
 * the warm sweep and 7 % off the cold one, for 33–57 MB of RSS at 10,000 machines
 * (alternating bench rounds). The sweeps are judged against a bare client; the RSS is the
 * price.
 */
export function pollerThreads(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}
