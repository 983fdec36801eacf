import type { Clock } from '../../shared/clock.js';
import type { Labels } from '../../shared/labels.js';
import type { Logger } from '../../shared/logger.js';
import type { CheckChange } from '../checks/check-book.js';
import type { ChangeSet } from '../domain/change-set.js';
import type { Journal } from '../domain/journal.js';
import { isStoreUnavailable } from '../domain/store-unavailable.js';
import { BOARD_WHO } from '../domain/who.js';
import type { Who } from '../schemas.js';
import { checkBatches } from './check-rules.js';
import type { Channel, NotifySettings } from './config.js';
import { deliver } from './deliver.js';
import { DeliveryQueue } from './delivery-queue.js';
import type { NotifyEvent } from './event.js';
import { linkPart } from './markup.js';
import type { DeliveryTable, NotificationClaims } from './ports.js';
import type { PushPort } from './push.js';
import { renderMessage } from './render.js';
import { type ChannelBatch, RuleEngine } from './rule-engine.js';
import { describeRules, type RuleView } from './rule-view.js';
import type { SentAlerts } from './sent-alerts.js';

export interface NotifierDeps {
  clock: Clock;
  journal: Journal;
  logger: Logger;
  /** Where deliveries not made at a stop are kept for the next start. */
  deliveries: DeliveryTable;
  /** Links in messages point here (board.yaml `public_url`). */
  publicUrl: string | null;
  /** Whether notifications for a machine are silenced (the silences). */
  silenced(name: string, now: number): boolean;
  /** A machine's labels now (rules with a selector). Absent: none. */
  labels?: (name: string) => Labels;
  /** Whether this board sends what concerns a machine (of several boards: its owner). Absent: it does. */
  mayNotify?: (machine: string) => boolean;
  /** Of several boards sharing a store: events claimed before they are sent. Absent: none. */
  claims?: NotificationClaims;
  /** The board's Web Push (key and subscriptions) for webpush channels. Absent: they fail. */
  push?: PushPort;
  /** Where the disk alerts sent are kept, so a restart does not send them again. */
  alerts?: SentAlerts;
  /** Test seams: the queue's waits between tries, the sending itself. */
  backoffMs?: readonly number[];
  send?: ConstructorParameters<typeof DeliveryQueue>[0]['send'];
}

/** The answer of a test delivery. */
export type TestResult =
  | { found: false }
  | { found: true; ok: true }
  | { found: true; ok: false; why: string; status: number | null };

/** Outcomes by channel, for /metrics. */
export type DeliveryCounts = Map<string, { delivered: number; failed: number; silenced: number }>;

/** How long a shutdown waits for deliveries in flight before keeping them for the next start. */
const CLOSE_GRACE_MS = 2000;

/**
 * The notifications: each change set is turned into at most one message per channel (inside
 * the board's tick, synchronously, fast), and handed to a bounded queue whose workers deliver
 * it in the background and journal each delivery's final outcome. `configure` swaps channels
 * and rules (a config reload).
 */
export class Notifier {
  private settings: NotifySettings;
  private channels = new Map<string, Channel>();
  private readonly engine: RuleEngine;
  private readonly queue: DeliveryQueue;
  private readonly counts: DeliveryCounts = new Map();

  constructor(
    private readonly deps: NotifierDeps,
    settings: NotifySettings,
  ) {
    this.settings = settings;
    this.channels = new Map(settings.channels.map((c) => [c.name, c]));
    this.engine = new RuleEngine(settings.rules, {
      silenced: (name, now) => deps.silenced(name, now),
      machineUrl: (name) =>
        deps.publicUrl === null
          ? null
          : `${deps.publicUrl.replace(/\/$/, '')}/?q=${linkPart(name)}`,
      ...(deps.alerts === undefined ? {} : { alerts: deps.alerts }),
      ...(deps.labels === undefined ? {} : { labels: deps.labels }),
    });
    this.queue = this.newQueue();
  }

  /** The board's Web Push, for a webpush channel's delivery. */
  private pushPort(): Promise<PushPort> {
    const port = this.deps.push;
    return port === undefined
      ? Promise.reject(new Error('Web Push is not set up on this board (push.subject)'))
      : Promise.resolve(port);
  }

  /** Swaps channels and rules; messages already queued go to the channel of their name now. */
  configure(settings: NotifySettings): void {
    this.settings = settings;
    this.channels = new Map(settings.channels.map((c) => [c.name, c]));
    this.engine.setRules(settings.rules);
  }

  /** The change-set listener: evaluates the rules and queues one message per channel. */
  readonly onChangeSet = (set: ChangeSet): void => {
    const started = performance.now();
    const batches = this.engine.evaluate(set);
    let events = 0;
    for (const [name, batch] of batches) {
      events += batch.events.length;
      this.dispatch(name, batch);
    }
    if (events > 0) {
      // One line per sweep that notifies (not per event): what went out and what it cost.
      const ms = Math.round((performance.now() - started) * 10) / 10;
      this.deps.logger.info({ channels: batches.size, events, ms }, 'notifications queued');
    }
  };

  /** The check book's listener: a change of a check through the rules, one message per channel. */
  readonly onCheckChange = (change: CheckChange): void => {
    for (const [name, batch] of checkBatches(this.settings.rules, change))
      this.dispatch(name, batch);
  };

  private dispatch(name: string, all: ChannelBatch): void {
    const channel = this.channels.get(name);
    if (channel === undefined) return;
    // Of several boards, each evaluates every machine (so each knows what was sent and can send
    // the recovery after a failover) and sends what concerns the machines it owns.
    // A check's events go by the check's name, as a machine's go by the machine's.
    const mine = (e: NotifyEvent) => this.mayNotify(e.check ?? e.machine);
    const batch = { events: all.events.filter(mine), silenced: all.silenced.filter(mine) };
    const claiming = batch.events.length > 0 ? this.claim(name, batch.events) : null;
    if (claiming !== null) {
      // Of several boards: each event is claimed in the store first; one claimed by another
      // board within the window (two boards that both thought they owned it) is not sent twice.
      claiming.then(
        (claimed) => this.send(name, channel, { events: claimed, silenced: batch.silenced }),
        // The store cannot take the claim (it is away): this board owns the machines, so it
        // sends (a duplicate is better than a down nobody hears of).
        () => this.send(name, channel, batch),
      );
      return;
    }
    this.send(name, channel, batch);
  }

  /** Told of each message's final outcome (delivered, or failed for good): its claims are settled. */
  private settled(channel: string, events: NotifyEvent[]): void {
    this.deps.claims?.settle(channel, events);
  }

  /** Sends events another board claimed and never settled (it died): no claim, no owner check. */
  resend(channel: string, events: NotifyEvent[]): void {
    const ch = this.channels.get(channel);
    if (ch === undefined || events.length === 0) return;
    this.send(channel, ch, { events, silenced: [] });
  }

  /**
   * Claims a channel's events before they are sent (of several boards sharing a store): answers
   * the events to send, or null when every event is this board's to send.
   */
  private claim(channel: string, events: NotifyEvent[]): Promise<NotifyEvent[]> | null {
    return this.deps.claims?.claim(channel, events) ?? null;
  }

  private send(name: string, channel: Channel, batch: ChannelBatch): void {
    if (batch.silenced.length > 0) {
      this.count(name, 'silenced');
      this.note(name, 'silenced', null, `${summary(batch.silenced)} held back: silenced`);
    }
    if (batch.events.length === 0) return;
    const template =
      this.settings.templates.get(name) ?? this.settings.templates.get(channel.parsed.kind) ?? null;
    const message = renderMessage(
      batch.events,
      template,
      this.deps.publicUrl,
      channel.parsed.escape,
    );
    if (!this.queue.enqueue({ channel: name, message })) {
      this.count(name, 'failed');
      this.note(
        name,
        'failed',
        null,
        `${summary(batch.events)} dropped: the delivery queue is full (${this.settings.queueMax} messages waiting)`,
      );
    }
  }

  /** Whether this board sends what concerns `machine` (of several boards: its owner). */
  private mayNotify(machine: string): boolean {
    return this.deps.mayNotify?.(machine) ?? true;
  }

  /** GET /api/notify: channels by name and kind, and the rules; never a URL or a secret. */
  describe(): { channels: { name: string; kind: string }[]; rules: RuleView[] } {
    return {
      channels: this.settings.channels.map((c) => ({ name: c.name, kind: c.parsed.kind })),
      rules: describeRules(this.settings.rules),
    };
  }

  /** POST /api/notify/test: one real delivery of a test event, one try, journaled. */
  async test(name: string, who: Who): Promise<TestResult> {
    const channel = this.channels.get(name);
    if (channel === undefined) return { found: false };
    const event: NotifyEvent = {
      event: 'test',
      machine: '',
      at: new Date(this.deps.clock.now()).toISOString(),
      message: `channel ${name}`,
    };
    const message = renderMessage([event], null, this.deps.publicUrl, channel.parsed.escape);
    const result = await deliver(channel.parsed, message, {
      timeoutMs: this.settings.timeoutMs,
      tries: 1,
      push: { channel: name, port: () => this.pushPort() },
    });
    if (result.ok) {
      this.count(name, 'delivered');
      const to = result.detail === undefined ? '' : ` ${result.detail}`;
      await this.record(who, name, 'delivered', result.status, `test message delivered${to}`);
      return { found: true, ok: true };
    }
    this.count(name, 'failed');
    await this.record(
      who,
      name,
      'failed',
      result.status,
      `test message not delivered: ${result.why}`,
    );
    return { found: true, ok: false, why: result.why, status: result.status };
  }

  /** Deliveries by channel and outcome since the start. */
  deliveryCounts(): DeliveryCounts {
    return this.counts;
  }

  /** Messages waiting or in flight. */
  pending(): number {
    return this.queue.size();
  }

  /** Resolves when no delivery is waiting or in flight. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Queues again what a previous run could not deliver before it stopped. */
  async restorePending(): Promise<number> {
    const kept = await this.deps.deliveries.take();
    let n = 0;
    for (const item of kept) {
      if (!this.channels.has(item.channel)) continue;
      if (this.queue.enqueue(item)) n += 1;
    }
    if (n > 0)
      this.deps.logger.info(
        { messages: n },
        'notifications kept at the last stop are delivered now',
      );
    return n;
  }

  /** Stops delivering: what is not delivered within a short grace is kept for the next start. */
  async close(): Promise<void> {
    await this.deps.alerts?.settled();
    const left = await this.queue.close(CLOSE_GRACE_MS);
    if (left.length > 0) {
      await this.deps.deliveries.keep(left);
      // Kept for this board's next start: not for another board to take over meanwhile.
      for (const p of left) this.settled(p.channel, p.message.events);
      this.deps.logger.info(
        { messages: left.length },
        'undelivered notifications kept for the next start',
      );
    }
  }

  private newQueue(): DeliveryQueue {
    return new DeliveryQueue({
      max: () => this.settings.queueMax,
      timeoutMs: () => this.settings.timeoutMs,
      ...(this.deps.backoffMs === undefined ? {} : { backoffMs: this.deps.backoffMs }),
      ...(this.deps.send === undefined ? {} : { send: this.deps.send }),
      channel: (name) => this.channels.get(name) ?? null,
      push: () => this.pushPort(),
      report: {
        delivered: (name, message, result) => {
          this.count(name, 'delivered');
          this.settled(name, message.events);
          const tries = result.tries > 1 ? ` after ${result.tries} tries` : '';
          const to = result.detail === undefined ? '' : ` ${result.detail}`;
          this.note(
            name,
            'delivered',
            result.status,
            `${summary(message.events)} delivered${to}${tries}`,
          );
        },
        failed: (name, message, why, status) => {
          this.count(name, 'failed');
          this.settled(name, message.events);
          this.deps.logger.warn({ channel: name, why }, 'notification not delivered');
          this.note(name, 'failed', status, `${summary(message.events)} not delivered: ${why}`);
        },
      },
    });
  }

  private count(name: string, outcome: 'delivered' | 'failed' | 'silenced'): void {
    let c = this.counts.get(name);
    if (c === undefined) {
      c = { delivered: 0, failed: 0, silenced: 0 };
      this.counts.set(name, c);
    }
    c[outcome] += 1;
  }

  /** Journals behind the tick (the listener is synchronous); a failure is logged. */
  private note(name: string, outcome: string, status: number | null, detail: string): void {
    this.record(BOARD_WHO, name, outcome, status, detail).catch((error: unknown) => {
      // A store that cannot write has said so once already (StoreHealth).
      if (!isStoreUnavailable(error))
        this.deps.logger.error({ err: error }, 'journal write failed');
    });
  }

  private async record(
    who: Who,
    name: string,
    outcome: string,
    status: number | null,
    detail: string,
  ): Promise<void> {
    await this.deps.journal.record({ who, op: 'notify', target: name, outcome, status, detail });
  }
}

/** "3 down (web1, web2, web3)", "1 bell (lab3)", "1 check (api)": what a message held, for the journal. */
export function summary(events: readonly NotifyEvent[]): string {
  const kinds = new Map<string, number>();
  for (const e of events) kinds.set(e.event, (kinds.get(e.event) ?? 0) + 1);
  const names = [...new Set(events.map((e) => e.check ?? e.machine).filter((m) => m !== ''))];
  const shown = names.slice(0, 5).join(', ');
  const more = names.length > 5 ? ` and ${names.length - 5} more` : '';
  const what = [...kinds].map(([k, n]) => `${n} ${k}`).join(', ');
  return names.length === 0 ? what : `${what} (${shown}${more})`;
}
