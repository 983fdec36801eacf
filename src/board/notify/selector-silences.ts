import { randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import { parseSelector, type Selector } from '../../shared/selector.js';
import type { Answer } from '../domain/answer.js';
import type { Journal } from '../domain/journal.js';
import type { Machine } from '../domain/machine.js';
import type { Registry } from '../domain/registry.js';
import { BOARD_WHO } from '../domain/who.js';
import type { Who } from '../schemas.js';
import type { SelectorSilenceRecord, SelectorSilenceTable } from './selector-silence-table.js';

interface Running {
  id: string;
  selector: Selector;
  until: number;
  reason: string;
}

/** A selector silence as the API shows it. */
export interface SelectorSilenceView {
  id: string;
  selector: string;
  until: string;
  reason: string;
}

const view = (s: Running): SelectorSilenceView => ({
  id: s.id,
  selector: s.selector.text,
  until: new Date(s.until).toISOString(),
  reason: s.reason,
});

/**
 * Silences that name a label selector (a site's maintenance): while one runs, every machine it
 * selects at the moment an event is judged sends nothing, a machine that joins the selection
 * included. Kept in the store (shared by the boards, read back at start), journaled at start
 * and end; each covered machine's record shows the latest end among those covering it.
 */
export class SelectorSilences {
  private readonly running = new Map<string, Running>();
  /** Machines whose record shows a selector silence (to clear when none covers them). */
  private covered = new Set<string>();
  private changes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly registry: Registry,
    private readonly journal: Journal,
    private readonly table: Pick<SelectorSilenceTable, 'put' | 'remove'>,
  ) {}

  /** The silences the store held at start (those still running). */
  restore(records: readonly SelectorSilenceRecord[]): void {
    this.replace(records);
  }

  /** Makes the running silences those the store holds (set or ended through another board). */
  sync(records: readonly SelectorSilenceRecord[], version: number): void {
    // A silence started or ended here while the store was read: the read may predate it.
    if (version !== this.changes) return;
    this.replace(records);
  }

  /** Bumped around each write made here (see `sync`). */
  get version(): number {
    return this.changes;
  }

  /** GET /api/silences: the running ones, ending soonest first. */
  list(shown: (selector: Selector) => boolean = () => true): SelectorSilenceView[] {
    const now = this.clock.now();
    return [...this.running.values()]
      .filter((s) => s.until > now && shown(s.selector))
      .sort((a, b) => a.until - b.until || (a.id < b.id ? -1 : 1))
      .map(view);
  }

  /** POST /api/silences: `selector` parsed by the route. */
  async start(who: Who, selector: Selector, minutes: number, reason: string): Promise<Answer> {
    const silence: Running = {
      id: randomBytes(8).toString('hex'),
      selector,
      until: this.clock.now() + minutes * 60_000,
      reason,
    };
    await this.written(() =>
      this.table.put({
        id: silence.id,
        selector: selector.text,
        until: silence.until,
        reason,
      }),
    );
    this.running.set(silence.id, silence);
    this.recover();
    const shown = view(silence);
    await this.journal.record({
      who,
      op: 'silence',
      target: `selector ${selector.text}`,
      outcome: 'silenced',
      status: 201,
      detail: `notifications silenced for ${minutes} min, until ${shown.until}, for every machine the selector selects${reason === '' ? '' : `: ${reason}`} (id ${silence.id})`,
    });
    return { status: 201, body: shown };
  }

  /** DELETE /api/silences/{id}. */
  async end(who: Who, id: string): Promise<Answer> {
    const silence = this.running.get(id);
    if (silence === undefined)
      return { status: 404, body: { detail: `No selector silence with id '${id}'` } };
    await this.written(() => this.table.remove(id));
    this.running.delete(id);
    this.recover();
    await this.journal.record({
      who,
      op: 'silence',
      target: `selector ${silence.selector.text}`,
      outcome: 'unsilenced',
      status: 200,
      detail: `silence ended by a person (id ${id})`,
    });
    return { status: 200, body: view(silence) };
  }

  /** Whether a running selector silence selects machine `name` (its labels now) at `now`. */
  covers(name: string, now: number): boolean {
    if (this.running.size === 0) return false;
    const labels = this.registry.get(name)?.labels;
    if (labels === undefined) return false;
    for (const s of this.running.values())
      if (s.until > now && s.selector.matches(labels, name)) return true;
    return false;
  }

  /**
   * Ends the silences that ran out and shows each machine's coverage as of now (labels may
   * have changed): once per change set. Returns the store's and journal's work, run behind the
   * tick; of several boards, the one whose removal found the row journals the end.
   */
  expire(now: number): Promise<void> | null {
    const ended = [...this.running.values()].filter((s) => s.until <= now);
    for (const s of ended) this.running.delete(s.id);
    this.recover();
    if (ended.length === 0) return null;
    return (async () => {
      for (const s of ended) {
        if (!(await this.written(() => this.table.remove(s.id)))) continue;
        await this.journal.record({
          who: BOARD_WHO,
          op: 'silence',
          target: `selector ${s.selector.text}`,
          outcome: 'unsilenced',
          status: null,
          detail: `silence ran out (id ${s.id})`,
        });
      }
    })();
  }

  private async written<T>(write: () => Promise<T>): Promise<T> {
    this.changes += 1;
    try {
      return await write();
    } finally {
      this.changes += 1;
    }
  }

  private replace(records: readonly SelectorSilenceRecord[]): void {
    const now = this.clock.now();
    const kept = new Map<string, Running>();
    for (const r of records) {
      if (r.until <= now) continue;
      const known = this.running.get(r.id);
      if (known !== undefined) {
        kept.set(r.id, known);
        continue;
      }
      try {
        kept.set(r.id, {
          id: r.id,
          selector: parseSelector(r.selector),
          until: r.until,
          reason: r.reason,
        });
      } catch {
        // Written by a board that parsed it; a row that no longer parses silences nothing.
      }
    }
    this.running.clear();
    for (const [id, s] of kept) this.running.set(id, s);
    this.recover();
  }

  /** Each machine's record: the latest end among the silences selecting it now (or none). */
  private recover(): void {
    if (this.running.size === 0 && this.covered.size === 0) return;
    const now = this.clock.now();
    const covered = new Set<string>();
    for (const m of this.registry.all()) {
      let until: number | null = null;
      for (const s of this.running.values()) {
        if (
          s.until > now &&
          (until === null || s.until > until) &&
          s.selector.matches(m.labels, m.name)
        )
          until = s.until;
      }
      if (until !== null) covered.add(m.name);
      if (until !== null || this.covered.has(m.name))
        this.registry.update(m.name, (machine) => coverUntil(machine, until));
    }
    this.covered = covered;
  }
}

/** Marks `m` covered by selector silences until `until` (null: by none); true if that changed. */
function coverUntil(m: Machine, until: number | null): boolean {
  if (m.coveredUntil === until) return false;
  m.coveredUntil = until;
  return true;
}
