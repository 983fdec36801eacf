/**
 * Refusals journaled one by one per minute, board-wide and of every kind together; past it
 * they are counted, and each kind's count is journaled as one summary when the minute ends.
 * So an outsider cannot flush what was done out of the journal with what was refused.
 */
export const REFUSALS_PER_MINUTE = 100;
const WINDOW_MS = 60_000;
/** Addresses (or names) counted in a minute's summary per kind, at most (the count is exact). */
const DISTINCT_MAX = 10_000;

/** What a kind's summary says: how many were only counted, from how many sources. */
export interface RefusalSummary {
  kind: string;
  counted: number;
  sources: number;
  /** Whether more sources were seen than were counted. */
  more: boolean;
  /** ms since the epoch the minute began. */
  from: number;
}

/** The budget of one minute. */
export class RefusalBudget {
  private start = Number.NEGATIVE_INFINITY;
  private journaled = 0;
  private counted = new Map<string, { count: number; sources: Set<string> }>();

  constructor(private readonly perMinute = REFUSALS_PER_MINUTE) {}

  /**
   * Takes one refusal: `journal` (journal it one by one), `last` (journal it, and say that
   * the budget is spent) or `count` (only counted).
   */
  take(now: number, kind: string, source: string): 'journal' | 'last' | 'count' {
    if (now - this.start >= WINDOW_MS && this.counted.size === 0) this.restart(now);
    if (this.journaled < this.perMinute) {
      this.journaled += 1;
      return this.journaled === this.perMinute ? 'last' : 'journal';
    }
    let c = this.counted.get(kind);
    if (c === undefined) {
      c = { count: 0, sources: new Set() };
      this.counted.set(kind, c);
    }
    c.count += 1;
    if (c.sources.size < DISTINCT_MAX) c.sources.add(source);
    return 'count';
  }

  /** Ends the minute once it is over: the summaries of what was only counted, one per kind. */
  close(now: number): RefusalSummary[] {
    if (now - this.start < WINDOW_MS) return [];
    const from = this.start;
    const out: RefusalSummary[] = [];
    for (const [kind, c] of this.counted) {
      out.push({
        kind,
        counted: c.count,
        sources: c.sources.size,
        more: c.sources.size >= DISTINCT_MAX,
        from,
      });
    }
    this.restart(now);
    return out;
  }

  private restart(now: number): void {
    this.start = now;
    this.journaled = 0;
    this.counted = new Map();
  }
}
