import type { Clock } from '../../shared/clock.js';
import type { JournalEntry, Who } from '../schemas.js';
import type { Journal } from './journal.js';
import { clip } from './outcome.js';
import { REFUSALS_PER_MINUTE, RefusalBudget } from './refusal-budget.js';
import { ANONYMOUS_WHO, machineWho, registrationWho } from './who.js';

/** How many refused reports (cap reached) are journaled per minute at most. */
const CAP_JOURNAL_INTERVAL_MS = 60_000;

/** Refused tokens journaled one by one per minute (now the budget of every refusal kind). */
export const AUTH_JOURNAL_PER_MINUTE = REFUSALS_PER_MINUTE;

/** A status and a body for the HTTP layer (the same shape as Board's Answer). */
interface Refusal {
  status: number;
  body: { detail: string };
}

/**
 * What goes into the journal, and how much of what outsiders can cause at will: refusals of
 * every kind share one board-wide budget a minute, new announced names another; past them
 * they are counted and journaled as one summary per kind and minute.
 */
export class JournalPolicy {
  private lastCapJournal = Number.NEGATIVE_INFINITY;
  private capRefusedSince = 0;
  private readonly refusals = new RefusalBudget();
  private readonly announcements = new RefusalBudget();
  /** Entries machines' reports cause (an update's outcome): an outsider's too. */
  private readonly reports = new RefusalBudget();

  constructor(
    private readonly journal: Journal,
    private readonly clock: Clock,
  ) {}

  /** Records one entry as it is. */
  note(
    who: Who,
    op: string,
    target: string,
    outcome: string,
    status: number | null,
    detail: string,
  ): Promise<JournalEntry> {
    return this.journal.record({ who, op, target, outcome, status, detail });
  }

  /** Journals a refusal within the budget and returns the answer to send. */
  async refuse(
    who: Who,
    op: string,
    target: string,
    status: number,
    detail: string,
    source = target,
  ): Promise<Refusal> {
    await this.closeWindow();
    const taken = this.refusals.take(this.clock.now(), op, source);
    if (taken !== 'count') {
      await this.note(who, op, target, 'refused', status, detail);
      if (taken === 'last') {
        await this.note(
          ANONYMOUS_WHO,
          op,
          '*',
          'refused',
          null,
          op === 'auth'
            ? `${AUTH_JOURNAL_PER_MINUTE} refused tokens this minute: more are counted, not journaled one by one`
            : `${AUTH_JOURNAL_PER_MINUTE} refusals this minute: more are counted, not journaled one by one`,
        );
      }
    }
    return { status, body: { detail } };
  }

  /** Journals a new announced name within its budget (10,000 new names are not 10,000 entries). */
  async announced(who: Who, name: string, location: string): Promise<void> {
    await this.closeWindow();
    const taken = this.announcements.take(this.clock.now(), 'announce', name);
    if (taken === 'count') return;
    await this.note(who, 'announce', name, 'announced', 200, `announced from ${clip(location)}`);
    if (taken === 'last') {
      await this.note(
        who,
        'announce',
        '*',
        'announced',
        null,
        `${REFUSALS_PER_MINUTE} new machines this minute: more are counted, not journaled one by one`,
      );
    }
  }

  /**
   * Journals what a machine's report caused (`who`: machine when the words are its own) within
   * the budget of what reports cause: past it, counted and summed up once a minute.
   */
  async reported(
    who: Who,
    op: string,
    name: string,
    outcome: string,
    detail: string,
  ): Promise<void> {
    await this.closeWindow();
    const taken = this.reports.take(this.clock.now(), op, name);
    if (taken === 'count') return;
    await this.note(who, op, name, outcome, null, detail);
    if (taken === 'last') {
      await this.note(
        machineWho('*'),
        op,
        '*',
        'counted',
        null,
        `${REFUSALS_PER_MINUTE} entries from machines' reports this minute: more are counted, not journaled one by one`,
      );
    }
  }

  /** A report refused for the caps: journaled at most once a minute, with the count. */
  async capRefusal(
    who: Who,
    detail: string,
    counted = 'report(s) of new names refused',
  ): Promise<void> {
    this.capRefusedSince += 1;
    const now = this.clock.now();
    if (now - this.lastCapJournal < CAP_JOURNAL_INTERVAL_MS) return;
    this.lastCapJournal = now;
    const count = this.capRefusedSince;
    this.capRefusedSince = 0;
    await this.note(who, 'report', '*', 'refused', 409, `${detail} (${count} ${counted})`);
  }

  /** Ends the minute once it is over, journaling each kind's count. */
  async closeWindow(): Promise<void> {
    const now = this.clock.now();
    for (const s of this.announcements.close(now)) {
      await this.note(
        registrationWho('*'),
        'announce',
        '*',
        'announced',
        null,
        `${s.counted} more new machines in the minute from ${new Date(s.from).toISOString()}, not journaled one by one`,
      );
    }
    for (const s of this.reports.close(now)) {
      await this.note(
        machineWho('*'),
        s.kind,
        '*',
        'counted',
        null,
        `${s.counted} more ${s.kind} entries from ${s.sources}${s.more ? '+' : ''} machine(s)' reports in the minute from ${new Date(s.from).toISOString()}, not journaled one by one`,
      );
    }
    for (const s of this.refusals.close(now)) {
      const from = new Date(s.from).toISOString();
      const what = s.kind === 'auth' ? 'refused tokens' : `refused ${s.kind} requests`;
      const sources = s.kind === 'auth' ? 'address(es)' : 'target(s)';
      await this.note(
        ANONYMOUS_WHO,
        s.kind,
        '*',
        'refused',
        null,
        `${s.counted} more ${what} from ${s.sources}${s.more ? '+' : ''} ${sources} in the minute from ${from}, not journaled one by one`,
      );
    }
  }
}
