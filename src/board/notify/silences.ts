import type { Clock } from '../../shared/clock.js';
import type { Answer } from '../domain/answer.js';
import type { Journal } from '../domain/journal.js';
import type { Registry } from '../domain/registry.js';
import { BOARD_WHO } from '../domain/who.js';
import type { Who } from '../schemas.js';
import type { SilenceKeeper, SilenceRecord } from './ports.js';

export const SILENCE_MINUTES_MAX = 43_200;

/**
 * Maintenance silences: a silenced machine still shows its state but sends no notification
 * until the silence ends. Kept in the registry (board records show `silenced_until`) and in a
 * snapshot file, so they survive a restart; every start and end is journaled.
 */
export class Silences {
  private readonly reasons = new Map<string, string>();
  private changes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly registry: Registry,
    private readonly journal: Journal,
    private readonly store: SilenceKeeper,
    /** Whether this board journals a machine's silence running out (of several: its owner). */
    private readonly owns: (name: string) => boolean = () => true,
  ) {}

  /** Brings back the silences saved before a restart (those still running, of machines known). */
  restore(): void {
    const now = this.clock.now();
    for (const s of this.store.load()) {
      if (s.until <= now) continue;
      if (this.registry.setSilence(s.name, s.until)) this.reasons.set(s.name, s.reason);
    }
  }

  /**
   * Makes the silences those the store holds (of several boards: one set through another board
   * holds here too, and the machine's owner, whichever board it is, sends nothing).
   */
  sync(records: readonly SilenceRecord[], version: number): void {
    // A silence set or ended here while the store was read: the read may predate its save.
    if (version !== this.version) return;
    const now = this.clock.now();
    const stored = new Map(records.filter((r) => r.until > now).map((r) => [r.name, r]));
    for (const name of [...this.reasons.keys()]) {
      if (stored.has(name)) continue;
      this.reasons.delete(name);
      this.registry.setSilence(name, null);
    }
    for (const r of stored.values()) {
      if (
        this.registry.get(r.name)?.silencedUntil === r.until &&
        this.reasons.get(r.name) === r.reason
      )
        continue;
      if (this.registry.setSilence(r.name, r.until)) this.reasons.set(r.name, r.reason);
    }
  }

  /** POST /api/machines/{name}/silence. */
  async set(who: Who, name: string, minutes: number, reason: string): Promise<Answer> {
    const until = this.clock.now() + minutes * 60_000;
    const before = this.registry.get(name)?.silencedUntil ?? null;
    const reasonBefore = this.reasons.get(name);
    if (!this.registry.setSilence(name, until)) return notFound(name);
    this.reasons.set(name, reason);
    await this.saveOrUndo(name, before, reasonBefore);
    const at = new Date(until).toISOString();
    await this.journal.record({
      who,
      op: 'silence',
      target: name,
      outcome: 'silenced',
      status: 200,
      detail: `notifications silenced for ${minutes} min, until ${at}${reason === '' ? '' : `: ${reason}`}`,
    });
    return { status: 200, body: { name, silenced_until: at, reason } };
  }

  /** DELETE /api/machines/{name}/silence. */
  async end(who: Who, name: string): Promise<Answer> {
    const machine = this.registry.get(name);
    if (machine === undefined) return notFound(name);
    const was = machine.silencedUntil;
    const reasonBefore = this.reasons.get(name);
    this.registry.setSilence(name, null);
    this.reasons.delete(name);
    await this.saveOrUndo(name, was, reasonBefore);
    if (was !== null) {
      await this.journal.record({
        who,
        op: 'silence',
        target: name,
        outcome: 'unsilenced',
        status: 200,
        detail: 'silence ended by a person',
      });
    }
    return { status: 200, body: { name, silenced_until: null, reason: null } };
  }

  /** Bumped before and after each save made here (see `sync`). */
  get version(): number {
    return this.changes;
  }

  /** Saves the silences; if that fails, `name`'s silence is as it was (the answer is a 503). */
  private async saveOrUndo(name: string, until: number | null, reason?: string): Promise<void> {
    this.changes += 1;
    try {
      await this.store.save(() => this.records());
    } catch (error) {
      this.registry.setSilence(name, until);
      if (reason === undefined) this.reasons.delete(name);
      else this.reasons.set(name, reason);
      throw error;
    } finally {
      this.changes += 1;
    }
  }

  /** Whether notifications for `name` are silenced at `now`. */
  silenced(name: string, now: number): boolean {
    const until = this.registry.get(name)?.silencedUntil ?? null;
    return until !== null && until > now;
  }

  /**
   * Ends the silences that ran out (called once per change set, before rules are evaluated);
   * returns the work of saving and journaling, which the caller runs behind the tick.
   */
  expire(now: number): Promise<void> | null {
    const ended: string[] = [];
    for (const name of this.reasons.keys()) {
      const until = this.registry.get(name)?.silencedUntil ?? null;
      if (until === null) {
        this.reasons.delete(name);
        continue;
      }
      if (until <= now) ended.push(name);
    }
    if (ended.length === 0) return null;
    for (const name of ended) {
      this.registry.setSilence(name, null);
      this.reasons.delete(name);
    }
    return (async () => {
      this.changes += 1;
      try {
        await this.store.save(() => this.records());
      } finally {
        this.changes += 1;
      }
      // Of several boards, each ends it; the machine's owner journals it.
      for (const name of ended.filter((n) => this.owns(n))) {
        await this.journal.record({
          who: BOARD_WHO,
          op: 'silence',
          target: name,
          outcome: 'unsilenced',
          status: null,
          detail: 'silence ran out',
        });
      }
    })();
  }

  /** The running silence's reason, or null. */
  reason(name: string): string | null {
    return this.reasons.get(name) ?? null;
  }

  private records(): SilenceRecord[] {
    const out: SilenceRecord[] = [];
    for (const [name, reason] of this.reasons) {
      const until = this.registry.get(name)?.silencedUntil ?? null;
      if (until !== null) out.push({ name, until, reason });
    }
    return out;
  }
}

function notFound(name: string): Answer {
  return { status: 404, body: { detail: `No machine named '${name}' on this board` } };
}
