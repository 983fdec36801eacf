import { HandedChecks } from '../../shared/checks/wire.js';
import { Value } from '../../shared/typebox.js';
import type { HandedAction, HandedResult } from '../../shared/wire/action.js';
import type { ActionName } from '../../shared/wire/common.js';
import type { Overview } from '../../shared/wire/overview.js';
import { type HandedUpdate, ReportAnswer } from '../../shared/wire/report.js';
import type { Cancel, Clock } from './clock.js';
import { interruptedResult, type RanStore } from './ran-ids.js';
import { fitReport } from './report-fit.js';
import type { ActionOutcome } from './services.js';

/** Sends one report's JSON to the board; throws when the board cannot be reached in time. */
export type ReportPoster = (json: string) => Promise<{ status: number; body: unknown }>;

/** The few log calls the reporter makes (a pino logger fits). */
export interface ReporterLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface ReporterDeps {
  intervalMs: number;
  /** Where a browser reaches this agent. */
  location: string;
  /**
   * timedKeyProof(board_key, name, location, at) for a report made at `at` (ISO 8601), or null
   * while the agent honours no board key. Made per report, so a captured one cannot be replayed.
   */
  keyProof?: ((at: string) => string | null) | null;
  /** The board refused a report because this machine's key was revoked there. */
  revoked?: () => void;
  overview: () => Promise<Overview>;
  /** Runs a handed action exactly as POST /api/do would for the board key. */
  act: (what: string, action: ActionName) => Promise<ActionOutcome>;
  store: RanStore;
  /** The board accepted a report (a new agent file on trial confirms on the first). */
  accepted?: () => void;
  /** The board's answer asks for an update of the agent's own file. */
  update?: (request: HandedUpdate) => void;
  /** The board's answer hands the checks to run (the report's checks_version differed). */
  checks?: (handed: HandedChecks) => void;
  post: ReportPoster;
  clock: Clock;
  /** A number in [0, 1), for the jitter of back-off. */
  random: () => number;
  log: ReporterLog;
  maxBackoffMs?: number;
}

export const MAX_BACKOFF_MS = 5 * 60 * 1000;
/** Results waiting to be sent are capped; one dropped is re-sent if the board hands its id again. */
const PENDING_MAX = 1000;

/** Nudged reports come at most this often. */
const NUDGE_MS = 1000;

/**
 * Announce mode: reports the overview to the board every interval, runs the actions the board
 * hands back (each id at most once, across restarts), and sends their results in the following
 * reports until one is accepted. When the board is unreachable it backs off (doubling, with
 * ±20 % jitter, up to five minutes) and keeps trying; the agent serves locally all along.
 */
export class Reporter {
  private timer: Cancel | null = null;
  private cycling: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private failures = 0;
  private readonly pending = new Map<string, HandedResult>();
  private readonly inFlight = new Set<string>();
  private actions: Promise<void> = Promise.resolve();
  private nudging = false;
  /** Where the next report's good check results start, when not all of them fit in one. */
  private goodFrom = 0;
  private lastNudge = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: ReporterDeps) {}

  /** Reports at once, then every interval. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops reporting; resolves when a report in flight has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.();
    this.timer = null;
    await this.cycling;
  }

  /**
   * Reports soon, at most once a second however often it is asked: a check failed or recovered
   * (the board must see each failed run to count them against failure_threshold).
   */
  nudge(): void {
    if (this.nudging || this.stopped) return;
    this.nudging = true;
    const wait = Math.max(0, this.lastNudge + NUDGE_MS - this.deps.clock.now());
    this.deps.clock.setTimeout(() => {
      this.nudging = false;
      this.lastNudge = this.deps.clock.now();
      this.soon();
    }, wait);
  }

  /** Consecutive failed reports (0 while the board answers). */
  get failing(): number {
    return this.failures;
  }

  /** Resolves when every handed action so far has run and its result is recorded. */
  settled(): Promise<void> {
    return this.actions;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer?.();
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      this.cycling = this.cycle().finally(() => {
        this.cycling = null;
      });
    }, ms);
  }

  /** Reports as soon as the report in flight (if any) is done: a result is waiting. */
  private soon(): void {
    if (this.stopped || this.failures > 0) return;
    if (this.cycling !== null) this.again = true;
    else this.schedule(0);
  }

  private async cycle(): Promise<void> {
    let delay: number;
    try {
      delay = await this.reportOnce();
    } catch (error) {
      delay = this.failed(error instanceof Error ? error.message : String(error));
    }
    if (this.again && this.failures === 0) delay = 0;
    this.again = false;
    this.schedule(delay);
  }

  /** One report; returns the delay before the next one. */
  private async reportOnce(): Promise<number> {
    const overview = await this.deps.overview();
    const at = new Date(this.deps.clock.now()).toISOString();
    const proof = this.deps.keyProof?.(at) ?? null;
    const { json, sentIds, goodSent } = fitReport(
      overview,
      this.deps.location,
      [...this.pending.values()],
      undefined,
      proof === null ? null : { key_proof: proof, key_proof_at: at },
      this.deps.intervalMs / 1000,
      this.goodFrom,
    );
    const answer = await this.deps.post(json);
    if (answer.status < 200 || answer.status > 299) {
      if (isRevokedRefusal(answer.status, answer.body)) this.deps.revoked?.();
      return this.failed(refusal(answer.status, answer.body));
    }
    // Checks this agent cannot take (more, or of a kind, than it knows) never cost it the
    // actions and the update beside them: the rest of the answer is taken, the checks refused.
    const { checks: handed, ...rest } = (answer.body ?? {}) as Record<string, unknown>;
    if (!Value.Check(ReportAnswer, rest)) {
      return this.failed('the board answered with something that is not a report answer');
    }
    const body = rest as ReportAnswer;
    const checks = handed === undefined || Value.Check(HandedChecks, handed) ? handed : null;
    if (checks === null)
      this.deps.log.warn(
        {},
        'the board handed checks this agent cannot take; it runs the ones it has',
      );
    if (this.failures > 0) {
      this.deps.log.info({ after_failures: this.failures }, 'board reachable again');
    }
    this.failures = 0;
    this.goodFrom = goodSent === undefined ? 0 : this.goodFrom + goodSent;
    for (const id of sentIds) this.pending.delete(id);
    for (const action of body.actions) this.take(action);
    this.deps.accepted?.();
    if (body.update !== undefined) this.deps.update?.(body.update);
    if (checks !== undefined && checks !== null) this.deps.checks?.(checks as HandedChecks);
    return this.deps.intervalMs;
  }

  private failed(reason: string): number {
    this.failures += 1;
    const max = this.deps.maxBackoffMs ?? MAX_BACKOFF_MS;
    const base = Math.min(max, this.deps.intervalMs * 2 ** Math.min(this.failures, 30));
    const delay = Math.round(base * (0.8 + 0.4 * this.deps.random()));
    const log = { failures: this.failures, retry_in_ms: delay, reason };
    if (this.failures === 1) this.deps.log.warn(log, 'report failed; backing off');
    else this.deps.log.info(log, 'report failed again');
    return delay;
  }

  /** Takes a handed action: runs it once, or re-sends what is known of an id seen before. */
  private take(action: HandedAction): void {
    if (this.inFlight.has(action.id) || this.pending.has(action.id)) return;
    const known = this.deps.store.get(action.id);
    if (known !== undefined) {
      // Sent with the next regular report: a board that keeps handing an id must not make the
      // agent report in a tight loop.
      this.addPending(known.state === 'done' ? known.result : interruptedResult(action.id));
      return;
    }
    this.inFlight.add(action.id);
    // Handed actions run one after another, in the order the board queued them.
    this.actions = this.actions.then(() => this.run(action));
  }

  private async run(action: HandedAction): Promise<void> {
    const fields = { id: action.id, what: action.what, action: action.action };
    try {
      await this.deps.store.markStarted(action.id);
    } catch (error) {
      this.inFlight.delete(action.id);
      this.deps.log.error({ ...fields, err: error }, 'cannot record a handed action; not run');
      return;
    }
    let result: HandedResult;
    try {
      const outcome = await this.deps.act(action.what, action.action);
      result = { id: action.id, status: outcome.status, body: outcome.body };
    } catch (error) {
      this.deps.log.error({ ...fields, err: error }, 'handed action failed');
      result = { id: action.id, status: 500, body: { detail: 'the agent failed to run it' } };
    }
    this.deps.log.info({ ...fields, status: result.status }, 'handed action ran');
    try {
      await this.deps.store.record(result);
    } catch (error) {
      this.deps.log.error({ ...fields, err: error }, 'cannot record a handed result');
    }
    this.inFlight.delete(action.id);
    this.addPending(result);
    this.soon();
  }

  private addPending(result: HandedResult): void {
    this.pending.set(result.id, result);
    while (this.pending.size > PENDING_MAX) {
      const oldest = this.pending.keys().next();
      if (oldest.done) break;
      this.pending.delete(oldest.value);
    }
  }
}

/**
 * A 403 saying the machine's key was revoked on the board: `revoked: true`, or (from a board
 * before that member) the detail's words.
 */
export function isRevokedRefusal(status: number, body: unknown): boolean {
  if (status !== 403 || body === null || typeof body !== 'object') return false;
  if ('revoked' in body && body.revoked === true) return true;
  return (
    'detail' in body &&
    typeof body.detail === 'string' &&
    body.detail.includes('was revoked on this board')
  );
}

function refusal(status: number, body: unknown): string {
  if (status === 401) return 'the board refused the registration token (401)';
  const detail =
    body !== null && typeof body === 'object' && 'detail' in body && typeof body.detail === 'string'
      ? `: ${body.detail.slice(0, 200)}`
      : '';
  return `the board answered ${status}${detail}`;
}
