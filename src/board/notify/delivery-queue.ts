import type { Channel } from './config.js';
import { deliver, type SendOptions, type SendResult } from './deliver.js';
import type { OutgoingMessage } from './event.js';
import type { Pending } from './ports.js';
import type { PushPort } from './push.js';
import { scrub } from './scrub.js';

/** Where the queue reports each delivery's final outcome (journal, log, counters). */
export interface DeliveryReport {
  delivered(channel: string, message: OutgoingMessage, result: SendResult & { ok: true }): void;
  failed(channel: string, message: OutgoingMessage, why: string, status: number | null): void;
}

export interface QueueOptions {
  /** Messages waiting or in flight at most (read at each enqueue: a reload may change it). */
  max: () => number;
  /** One try's time-out. */
  timeoutMs: () => number;
  /** Deliveries in flight at once. */
  concurrency?: number;
  backoffMs?: readonly number[];
  /** The channel of a name, as configured now (null when it is gone: a reload). */
  channel(name: string): Channel | null;
  report: DeliveryReport;
  /** The board's push, for webpush channels (resolves once the board has set it up). */
  push?: () => Promise<PushPort>;
  /** Replaces the real sending (tests of the queue itself). */
  send?: (channel: Channel, message: OutgoingMessage, options: SendOptions) => Promise<SendResult>;
}

/**
 * The bounded queue between the sweep and the network: `enqueue` returns at once, a few
 * workers deliver in the background. A full queue refuses (the caller journals it); `close`
 * ends the work and hands back what was not delivered so it can be kept for the next start.
 */
export class DeliveryQueue {
  private readonly waiting: Pending[] = [];
  private readonly inFlight = new Set<Pending>();
  private readonly running = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private closed = false;

  constructor(private readonly options: QueueOptions) {}

  /** Queues a message; false when the queue is full or closed. */
  enqueue(item: Pending): boolean {
    if (this.closed || this.size() >= this.options.max()) return false;
    this.waiting.push(item);
    this.pump();
    return true;
  }

  /** Messages waiting or in flight. */
  size(): number {
    return this.waiting.length + this.inFlight.size;
  }

  /** Resolves when nothing is waiting or in flight (tests, the benchmark). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /**
   * Stops taking and starting deliveries, gives those in flight `graceMs` to finish, then ends
   * them; returns every message not delivered (never started, or cut short) to be kept.
   */
  async close(graceMs: number): Promise<Pending[]> {
    this.closed = true;
    const left = this.waiting.splice(0);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([this.idle(), grace]);
    clearTimeout(timer);
    this.stop.abort();
    await this.idle();
    return [...left, ...this.inFlight];
  }

  private pump(): void {
    const concurrency = this.options.concurrency ?? 4;
    while (!this.closed && this.inFlight.size < concurrency && this.waiting.length > 0) {
      const item = this.waiting.shift() as Pending;
      this.inFlight.add(item);
      const run = this.run(item).finally(() => {
        this.running.delete(run);
        this.pump();
      });
      this.running.add(run);
    }
  }

  private async run(item: Pending): Promise<void> {
    const channel = this.options.channel(item.channel);
    if (channel === null) {
      this.inFlight.delete(item);
      this.options.report.failed(
        item.channel,
        item.message,
        'the channel is no longer configured',
        null,
      );
      return;
    }
    const send = this.options.send ?? ((c, m, o) => deliver(c.parsed, m, o));
    let result: SendResult;
    try {
      result = await send(channel, item.message, {
        timeoutMs: this.options.timeoutMs(),
        signal: this.stop.signal,
        ...(this.options.backoffMs === undefined ? {} : { backoffMs: this.options.backoffMs }),
        ...(this.options.push === undefined
          ? {}
          : { push: { channel: item.channel, port: this.options.push } }),
      });
    } catch (error) {
      const why = scrub(`could not send: ${(error as Error).message}`, channel.parsed.secrets);
      result = { ok: false, status: null, tries: 1, why, aborted: false };
    }
    // Cut short by the shutdown: it stays in flight, so close() keeps it for the next start.
    if (!result.ok && result.aborted) return;
    this.inFlight.delete(item);
    if (result.ok) this.options.report.delivered(item.channel, item.message, result);
    else this.options.report.failed(item.channel, item.message, result.why, result.status);
  }
}
