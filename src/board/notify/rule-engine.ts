import { type Labels, NO_LABELS } from '../../shared/labels.js';
import type { ChangeSet } from '../domain/change-set.js';
import type { Machine } from '../domain/machine.js';
import type { MetricName, Rule } from './config.js';
import { type Episode, remindDue } from './episode.js';
import type { NotifyEvent } from './event.js';
import { ProblemRules } from './problem-rules.js';
import type { SentAlerts } from './sent-alerts.js';

/** What fired for one channel in one sweep: to send, and held back by a machine's silence. */
export interface ChannelBatch {
  events: NotifyEvent[];
  silenced: NotifyEvent[];
}

/** How the engine sees silences and addresses (the notifier wires them to the registry). */
export interface EngineContext {
  /** Whether notifications for `name` are silenced at `now`. */
  silenced(name: string, now: number): boolean;
  /** The machine's address on the board (public_url), or null. */
  machineUrl(name: string): string | null;
  /** Where the disk alerts sent are kept across restarts (absent: nowhere). */
  alerts?: SentAlerts;
  /** The machine's labels now, for rules with a selector (absent: none). */
  labels?: (name: string) => Labels;
}

/** A machine seen going down (not first seen down): since when, and sweeps down in a row. */
interface Down {
  since: number;
  reason: string | null;
  failures: number;
}

interface Over {
  since: number;
  value: number;
  episode: Episode | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Turns change sets into notifications: debounce (`after`, `failures`), reminders (`repeat`,
 * `repeat_max`), recoveries of sent downs only, thresholds held `for` a while, and silences.
 * Plain and synchronous: it runs inside the board's tick, so its work is proportional to what
 * changed plus the machines down (and, for threshold rules only, the machines on the board).
 */
export class RuleEngine {
  private readonly down = new Map<string, Down>();
  /** rule key → machine → its down episode. */
  private readonly downSent = new Map<string, Map<string, Episode>>();
  /** rule key → machine\0path → how long past the limit. */
  private readonly over = new Map<string, Map<string, Over>>();
  /** The containers' and disks' episodes. */
  private readonly problems: ProblemRules;

  constructor(
    private rules: readonly Rule[],
    private readonly context: EngineContext,
  ) {
    this.problems = new ProblemRules(context.alerts ?? null, (rule, name) =>
      this.applies(rule, name),
    );
  }

  /** Whether `rule` applies to machine `name` as it is labelled now. */
  private applies(rule: Rule, name: string): boolean {
    return rule.matches(name, this.context.labels?.(name) ?? NO_LABELS);
  }

  /** New rules (a config reload): what rules still there have sent is kept, the rest dropped. */
  setRules(rules: readonly Rule[]): void {
    this.rules = rules;
    const keys = new Set(rules.map((r) => r.key));
    for (const key of this.downSent.keys()) if (!keys.has(key)) this.downSent.delete(key);
    for (const key of this.over.keys()) if (!keys.has(key)) this.over.delete(key);
    this.problems.setRules(keys);
  }

  /** Everything that fires in this change set, by channel name. */
  evaluate(set: ChangeSet): Map<string, ChannelBatch> {
    const now = set.at;
    const out = new Map<string, ChannelBatch>();
    const seen = new Map<string, Set<string>>();
    const emit = (rule: Rule, event: NotifyEvent, silenced: boolean) => {
      const key = `${event.event}\0${event.machine}\0${event.session ?? ''}\0${event.metric ?? ''}\0${event.path ?? ''}\0${event.reminder ?? ''}\0${event.action ?? ''}\0${event.why ?? ''}\0${event.container ?? event.device ?? ''}\0${event.recovered === true ? 1 : ''}`;
      for (const channel of rule.channels) {
        let keys = seen.get(channel);
        if (keys === undefined) {
          keys = new Set();
          seen.set(channel, keys);
        }
        if (keys.has(key)) continue;
        keys.add(key);
        let batch = out.get(channel);
        if (batch === undefined) {
          batch = { events: [], silenced: [] };
          out.set(channel, batch);
        }
        (silenced ? batch.silenced : batch.events).push(event);
      }
    };
    const base = (name: string, at: number, event: NotifyEvent['event']): NotifyEvent => {
      const e: NotifyEvent = { event, machine: name, at: iso(at) };
      const url = this.context.machineUrl(name);
      if (url !== null) e.url = url;
      return e;
    };

    for (const name of set.removed) this.forget(name);

    for (const t of set.transitions) {
      if (t.state === 'down') {
        // First seen (since the board started) sends nothing, now or later.
        if (t.previous === 'up')
          this.down.set(t.name, { since: t.at, reason: t.reason, failures: 0 });
        continue;
      }
      const was = this.down.get(t.name);
      this.down.delete(t.name);
      if (was === undefined || t.previous !== 'down') continue;
      for (const rule of this.rules) {
        const episode = this.downSent.get(rule.key)?.get(t.name);
        if (episode === undefined) continue;
        this.downSent.get(rule.key)?.delete(t.name);
        // Only the recovery of a down that was sent, by a rule that asks for it.
        if (episode.sentAt === null || !rule.events.has('up')) continue;
        const e = base(t.name, t.at, 'up');
        e.state = 'up';
        e.previous = 'down';
        e.since = iso(was.since);
        e.duration_s = Math.round((t.at - was.since) / 1000);
        emit(rule, e, this.context.silenced(t.name, now));
      }
    }

    const downRules = this.rules.filter((r) => r.events.has('down'));
    for (const [name, d] of this.down) {
      d.failures += 1;
      for (const rule of downRules) {
        if (!this.applies(rule, name)) continue;
        let episodes = this.downSent.get(rule.key);
        if (episodes === undefined) {
          episodes = new Map();
          this.downSent.set(rule.key, episodes);
        }
        const episode = episodes.get(name);
        const silenced = this.context.silenced(name, now);
        const event = (reminder: number | null) => {
          const e = base(name, now, 'down');
          e.state = 'down';
          e.previous = 'up';
          e.since = iso(d.since);
          if (d.reason !== null) e.reason = d.reason;
          if (reminder !== null) e.reminder = reminder;
          return e;
        };
        if (episode === undefined || episode.sentAt === null) {
          if (now - d.since < rule.afterMs || d.failures < rule.failures) continue;
          if (silenced) {
            if (episode === undefined) {
              episodes.set(name, { sentAt: null, lastAt: now, reminders: 0, silencedNoted: true });
              emit(rule, event(null), true);
            }
            continue;
          }
          episodes.set(name, { sentAt: now, lastAt: now, reminders: 0, silencedNoted: false });
          emit(rule, event(null), false);
        } else if (remindDue(rule, episode, now) && !silenced) {
          episode.reminders += 1;
          episode.lastAt = now;
          emit(rule, event(episode.reminders), false);
        }
      }
    }

    for (const c of set.late) {
      if (!c.late) continue;
      for (const rule of this.rules) {
        if (!rule.events.has('late') || !this.applies(rule, c.name)) continue;
        const e = base(c.name, c.at, 'late');
        e.reason = 'no report for twice its interval';
        emit(rule, e, this.context.silenced(c.name, now));
      }
    }

    for (const b of set.bells) {
      for (const rule of this.rules) {
        if (!rule.events.has('bell') || !this.applies(rule, b.name) || !rule.why.has(b.why))
          continue;
        const e = base(b.name, b.at, 'bell');
        e.session = b.session;
        e.why = b.why;
        e.message = b.text;
        emit(rule, e, this.context.silenced(b.name, now));
      }
    }

    for (const a of set.actionsFailed) {
      for (const rule of this.rules) {
        if (!rule.events.has('action_failed') || !this.applies(rule, a.name)) continue;
        const e = base(a.name, a.at, 'action_failed');
        e.action = `${a.action} ${a.what}`;
        e.reason = a.status === null ? a.detail : `${a.status}: ${a.detail}`;
        emit(rule, e, this.context.silenced(a.name, now));
      }
    }

    this.problems.evaluate(set, this.rules, base, emit, (name) => this.context.silenced(name, now));

    const thresholdRules = this.rules.filter((r) => r.events.has('threshold'));
    if (thresholdRules.length > 0) {
      for (const rule of thresholdRules) this.thresholds(rule, set, now, base, emit);
    }
    return out;
  }

  private thresholds(
    rule: Rule,
    set: ChangeSet,
    now: number,
    base: (name: string, at: number, event: NotifyEvent['event']) => NotifyEvent,
    emit: (rule: Rule, event: NotifyEvent, silenced: boolean) => void,
  ): void {
    const metric = rule.metric as MetricName;
    const limit = rule.above as number;
    const before = this.over.get(rule.key) ?? new Map<string, Over>();
    const after = new Map<string, Over>();
    for (const m of set.machines()) {
      if (m.state !== 'up' || m.metrics === null || !this.applies(rule, m.name)) continue;
      for (const [path, value] of readings(m, metric, rule.path)) {
        if (value <= limit) continue;
        const key = `${m.name}\0${path ?? ''}`;
        const o = before.get(key) ?? { since: now, value, episode: null };
        o.value = value;
        after.set(key, o);
        if (now - o.since < rule.forMs) continue;
        const silenced = this.context.silenced(m.name, now);
        const event = (reminder: number | null) => {
          const e = base(m.name, now, 'threshold');
          e.metric = metric;
          e.value = value;
          e.limit = limit;
          e.since = iso(o.since);
          if (path !== null) e.path = path;
          if (reminder !== null) e.reminder = reminder;
          return e;
        };
        if (o.episode === null || o.episode.sentAt === null) {
          if (silenced) {
            if (o.episode === null) {
              o.episode = { sentAt: null, lastAt: now, reminders: 0, silencedNoted: true };
              emit(rule, event(null), true);
            }
            continue;
          }
          o.episode = { sentAt: now, lastAt: now, reminders: 0, silencedNoted: false };
          emit(rule, event(null), false);
        } else if (remindDue(rule, o.episode, now) && !silenced) {
          o.episode.reminders += 1;
          o.episode.lastAt = now;
          emit(rule, event(o.episode.reminders), false);
        }
      }
    }
    this.over.set(rule.key, after);
  }

  private forget(name: string): void {
    this.down.delete(name);
    for (const episodes of this.downSent.values()) episodes.delete(name);
    this.problems.forget(name);
  }

  /** Machines tracked as down (for tests and the benchmark). */
  get downCount(): number {
    return this.down.size;
  }
}

/** The values a threshold rule reads from a machine: one, or one per disk. */
function readings(
  m: Readonly<Machine>,
  metric: MetricName,
  path: string | null,
): [string | null, number][] {
  const metrics = m.metrics;
  if (metrics === null) return [];
  if (metric === 'disk') {
    const disks = path === null ? metrics.disks : metrics.disks.filter((d) => d.path === path);
    return disks.map((d) => [d.path, d.ratio]);
  }
  const value =
    metric === 'temp'
      ? metrics.tempMax
      : metric === 'net_rx'
        ? metrics.netRx
        : metric === 'net_tx'
          ? metrics.netTx
          : metrics[metric];
  return value === null ? [] : [[null, value]];
}
