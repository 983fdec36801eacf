import { NO_LABELS } from '../../shared/labels.js';
import type { ChangeSet } from '../domain/change-set.js';
import type { Rule } from './config.js';
import { type Episode, remindDue } from './episode.js';
import type { NotifyEvent } from './event.js';
import { alertKey, type KeptAlert, type SentAlerts } from './sent-alerts.js';

/** Makes an event of a kind for a machine at a time (its address filled in). */
export type EventBase = (name: string, at: number, event: NotifyEvent['event']) => NotifyEvent;
/** Hands an event a rule fired to the rule's channels (held back when `silenced`). */
export type Emit = (rule: Rule, event: NotifyEvent, silenced: boolean) => void;

/** One open problem of a machine's container or disk. */
interface Problem {
  event: 'container' | 'disk_health';
  machine: string;
  /** The container's name, or the disk's device. */
  subject: string;
  /** ms since the epoch it began. */
  since: number;
  /** container: stopped or unhealthy. */
  problem: string | null;
  /** container: its state when it stopped (exited, dead, …), or removed. */
  reason: string | null;
  /** Sweeps it has been open. */
  sweeps: number;
}

const keyOf = alertKey;

/** Changes of a machine without a SMART reading after which an alert kept from before is let go. */
const UNREAD_MAX = 20;

/**
 * The `container` and `disk_health` events: per machine and container (or disk), an episode
 * that opens with a problem and ends with its recovery, sent as `down` and `up` are: after the
 * rule's `after` (or `failures` sweeps), reminded by `repeat`, held back by a silence, and the
 * recovery sent only for a problem that was sent. Its work per sweep is proportional to the
 * problems open, never to the machines on the board (but for one pass over them in a sweep
 * where a machine with a disk alert kept from before the start changed, until it is resolved).
 * What was sent of a disk is kept in the store (SentAlerts): a restart does not send it again.
 */
export class ProblemRules {
  private readonly open = new Map<string, Problem>();
  /** rule key → problem key → its episode. */
  private readonly sent = new Map<string, Map<string, Episode>>();
  /**
   * Disk alerts sent before the board's last stop, until the disk is seen again: failing (the
   * alert goes on as it was, not sent again) or passing (its recovery is sent).
   */
  private readonly kept: Map<string, KeptAlert>;
  /** Kept alerts: how many times their machine changed without a SMART reading. */
  private readonly unread = new Map<string, number>();

  constructor(
    private readonly store: SentAlerts | null = null,
    /** Whether a rule applies to a machine (its globs, and its selector on the labels now). */
    private readonly matches: (rule: Rule, machine: string) => boolean = (rule, machine) =>
      rule.matches(machine, NO_LABELS),
  ) {
    this.kept = store?.loaded() ?? new Map();
  }

  /** New rules: what rules still there have sent is kept, the rest dropped. */
  setRules(keys: ReadonlySet<string>): void {
    for (const key of this.sent.keys()) if (!keys.has(key)) this.sent.delete(key);
  }

  /** A machine forgotten: its problems go, without a message. */
  forget(machine: string): void {
    for (const [key, p] of this.open) if (p.machine === machine) this.drop(key);
    for (const [key, k] of this.kept) if (k.machine === machine) this.drop(key);
  }

  /** Opens, changes and ends problems from the set, then sends what is due. */
  evaluate(
    set: ChangeSet,
    rules: readonly Rule[],
    base: EventBase,
    emit: Emit,
    silenced: (name: string) => boolean,
  ): void {
    const now = set.at;
    for (const c of set.containers) {
      const key = keyOf('container', c.name, c.container);
      const held = this.open.get(key);
      if (c.problem !== null) {
        const reason = c.problem === 'stopped' ? (c.state ?? 'removed') : null;
        if (held === undefined) {
          this.open.set(key, {
            event: 'container',
            machine: c.name,
            subject: c.container,
            since: c.since,
            problem: c.problem,
            reason,
            sweeps: 0,
          });
        } else {
          held.problem = c.problem;
          held.reason = reason;
        }
        continue;
      }
      if (held === undefined) continue;
      if (c.gone === true) this.drop(key);
      else this.recover(key, held, c.at, rules, base, emit, silenced);
    }
    for (const d of set.diskHealth) {
      const key = keyOf('disk_health', d.name, d.device);
      const held = this.open.get(key);
      if (d.failing && held === undefined) {
        this.open.set(key, {
          event: 'disk_health',
          machine: d.name,
          subject: d.device,
          since: this.resume(key) ?? d.since,
          problem: null,
          reason: null,
          sweeps: 0,
        });
      } else if (!d.failing && held !== undefined) {
        this.recover(key, held, d.at, rules, base, emit, silenced);
      }
    }
    if (this.kept.size > 0) this.passedSinceStart(set, rules, base, emit, silenced);
    if (this.open.size === 0) return;
    const watching = rules.filter((r) => r.events.has('container') || r.events.has('disk_health'));
    for (const [key, p] of this.open) {
      p.sweeps += 1;
      for (const rule of watching) {
        if (!this.applies(rule, p)) continue;
        let episodes = this.sent.get(rule.key);
        if (episodes === undefined) {
          episodes = new Map();
          this.sent.set(rule.key, episodes);
        }
        const episode = episodes.get(key);
        const quiet = silenced(p.machine);
        if (episode === undefined || episode.sentAt === null) {
          if (now - p.since < rule.afterMs || p.sweeps < rule.failures) continue;
          if (quiet) {
            if (episode === undefined) {
              episodes.set(key, { sentAt: null, lastAt: now, reminders: 0, silencedNoted: true });
              emit(rule, this.event(p, now, base, null), true);
            }
            continue;
          }
          episodes.set(key, { sentAt: now, lastAt: now, reminders: 0, silencedNoted: false });
          emit(rule, this.event(p, now, base, null), false);
          this.keep(key, p);
        } else if (remindDue(rule, episode, now) && !quiet) {
          episode.reminders += 1;
          episode.lastAt = now;
          emit(rule, this.event(p, now, base, episode.reminders), false);
          this.keep(key, p);
        }
      }
    }
  }

  /** A disk alert kept from before the start, seen failing again: its episodes go on. */
  private resume(key: string): number | null {
    const k = this.kept.get(key);
    if (k === undefined) return null;
    this.kept.delete(key);
    this.unread.delete(key);
    for (const [rule, episode] of Object.entries(k.sent)) {
      let episodes = this.sent.get(rule);
      if (episodes === undefined) {
        episodes = new Map();
        this.sent.set(rule, episodes);
      }
      episodes.set(key, { ...episode });
    }
    return k.since;
  }

  /**
   * Kept alerts of machines heard from in this set whose SMART now says the disk passes (it
   * recovered while the board was away, or by its first reading since): the recovery is sent.
   * A disk no longer listed ends quietly. Looked for only while alerts from before the start
   * are unresolved, and only among the machines that changed.
   */
  private passedSinceStart(
    set: ChangeSet,
    rules: readonly Rule[],
    base: EventBase,
    emit: Emit,
    silenced: (name: string) => boolean,
  ): void {
    const names = new Set<string>();
    for (const k of this.kept.values()) if (set.changed.has(k.machine)) names.add(k.machine);
    if (names.size === 0) return;
    for (const m of set.machines()) {
      if (!names.has(m.name)) continue;
      const smart = m.metrics?.smart ?? null;
      if (smart === null) {
        // A machine that no longer says anything of its disks: after a while, nothing is kept.
        for (const [key, k] of this.kept)
          if (k.machine === m.name && (this.unread.get(key) ?? 0) >= UNREAD_MAX) this.drop(key);
          else if (k.machine === m.name) this.unread.set(key, (this.unread.get(key) ?? 0) + 1);
        continue;
      }
      for (const [key, k] of this.kept) {
        if (k.machine !== m.name) continue;
        const disk = smart.find((d) => d.device === k.subject);
        if (disk?.passed === false || disk?.passed === null) continue;
        const since = this.resume(key) ?? k.since;
        const p: Problem = {
          event: 'disk_health',
          machine: k.machine,
          subject: k.subject,
          since,
          problem: null,
          reason: null,
          sweeps: 0,
        };
        this.open.set(key, p);
        if (disk === undefined) this.drop(key);
        else this.recover(key, p, set.at, rules, base, emit, silenced);
      }
    }
  }

  /** Keeps what the rules sent of a disk's problem (a restart does not send it again). */
  private keep(key: string, p: Problem): void {
    if (this.store === null || p.event !== 'disk_health') return;
    const sent: Record<string, Episode> = {};
    for (const [rule, episodes] of this.sent) {
      const episode = episodes.get(key);
      if (episode !== undefined) sent[rule] = { ...episode };
    }
    this.store.keep(key, { machine: p.machine, subject: p.subject, since: p.since, sent });
  }

  /** Problems open (tests). */
  get size(): number {
    return this.open.size;
  }

  private applies(rule: Rule, p: Problem): boolean {
    return (
      rule.events.has(p.event) &&
      this.matches(rule, p.machine) &&
      (p.event !== 'container' || rule.containerMatches(p.subject))
    );
  }

  /** The problem's event: its first message, or reminder number `reminder`. */
  private event(p: Problem, now: number, base: EventBase, reminder: number | null): NotifyEvent {
    const e = this.subjectOf(base(p.machine, now, p.event), p);
    e.since = new Date(p.since).toISOString();
    if (p.reason !== null) e.reason = p.reason;
    if (reminder !== null) e.reminder = reminder;
    return e;
  }

  private subjectOf(e: NotifyEvent, p: Problem): NotifyEvent {
    if (p.event === 'container') {
      e.container = p.subject;
      if (p.problem !== null) e.problem = p.problem;
    } else e.device = p.subject;
    return e;
  }

  /** The problem ended: each rule that sent it (and matches it still) sends its recovery. */
  private recover(
    key: string,
    p: Problem,
    at: number,
    rules: readonly Rule[],
    base: EventBase,
    emit: Emit,
    silenced: (name: string) => boolean,
  ): void {
    for (const rule of rules) {
      const episode = this.sent.get(rule.key)?.get(key);
      if (episode === undefined || episode.sentAt === null || !this.applies(rule, p)) continue;
      const e = this.subjectOf(base(p.machine, at, p.event), p);
      e.recovered = true;
      e.since = new Date(p.since).toISOString();
      e.duration_s = Math.round((at - p.since) / 1000);
      emit(rule, e, silenced(p.machine));
    }
    this.drop(key);
  }

  private drop(key: string): void {
    const p = this.open.get(key);
    this.open.delete(key);
    for (const episodes of this.sent.values()) episodes.delete(key);
    this.unread.delete(key);
    if (this.kept.delete(key) || p?.event === 'disk_health') this.store?.drop([key]);
  }
}
