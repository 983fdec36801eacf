import type { Clock } from '../../shared/clock.js';
import type { HandedAction, HandedResult } from '../../shared/wire/action.js';
import type { ActionName } from '../../shared/wire/common.js';
import { KeyProofCheck } from '../../shared/wire/key-proof.js';
import type { Report } from '../../shared/wire/report.js';
import type { AgentClient, AgentTarget } from '../agent-client.js';
import type { BoardSettings, MachineConfig } from '../config.js';
import type { JournalEntry, Who } from '../schemas.js';
import type { ActionQueue, QueuedAction } from './action-queue.js';
import type { Journal } from './journal.js';
import type { Registry } from './registry.js';
import { sweep } from './sweep.js';

/** A status and a JSON body, as the HTTP layer will send them. */
export interface Answer {
  status: number;
  body: unknown;
}

export interface BoardDeps {
  settings: BoardSettings;
  clock: Clock;
  client: AgentClient;
  registry: Registry;
  queue: ActionQueue;
  journal: Journal;
  /** Makes the set of announced identities durable (called when it changes). */
  persistIdentities?: () => Promise<void>;
}

/** How many refused reports (cap reached) are journaled per minute at most. */
const CAP_JOURNAL_INTERVAL_MS = 60_000;

/**
 * Refused tokens journaled one by one per minute, from all addresses together; past it they are
 * counted into one entry for the minute, so guessing from many addresses cannot flush the
 * journal (each address alone is held to 20 a minute by the failure limiter).
 */
export const AUTH_JOURNAL_PER_MINUTE = 100;
const AUTH_WINDOW_MS = 60_000;
/** Addresses counted in a minute's summary, at most (the count of refusals is exact). */
const AUTH_ADDRESSES_MAX = 10_000;

/**
 * The board's use cases: relay or queue an action, take a report, forget a machine, sweep,
 * and the periodic upkeep. Plain TypeScript; the HTTP layer calls one method per request.
 */
export class Board {
  private lastCapJournal = Number.NEGATIVE_INFINITY;
  private capRefusedSince = 0;
  /** The current minute of refused tokens: journaled one by one, and counted past that. */
  private authWindow = {
    start: Number.NEGATIVE_INFINITY,
    journaled: 0,
    counted: 0,
    addresses: new Set<string>(),
  };
  /** Configured machines whose last poll timed out (the sweep plans with it). */
  private readonly silent = new Set<string>();
  private readonly configured: Map<string, MachineConfig>;
  private readonly keyProofs = new KeyProofCheck();

  constructor(private readonly deps: BoardDeps) {
    this.configured = new Map(deps.settings.machines.map((m) => [m.name, m]));
  }

  get registry(): Registry {
    return this.deps.registry;
  }

  get journal(): Journal {
    return this.deps.journal;
  }

  /** POST /api/do/{name}/{what}/{action}. */
  async doAction(who: Who, name: string, what: string, action: ActionName): Promise<Answer> {
    const { registry, settings, client } = this.deps;
    const target = `${name}/${what}/${action}`;
    const machine = registry.get(name);
    if (machine === undefined) {
      const detail = `No machine named '${name}' on this board`;
      await this.note(who, 'do', target, 'refused', 404, detail);
      return { status: 404, body: { detail } };
    }
    if (machine.origin === 'configured') {
      const config = this.configured.get(name);
      const agent: AgentTarget = { url: config?.url ?? machine.location, key: config?.key ?? null };
      const outcome = await client.relay(agent, what, action, settings.pollTimeoutMs);
      if (outcome.kind === 'answer')
        return this.passThrough(who, target, outcome.status, outcome.body);
      const status = outcome.kind === 'timeout' ? 504 : 502;
      const detail = `Machine '${name}' is unreachable: ${outcome.error}`;
      await this.note(who, 'do', target, 'failed', status, detail);
      return { status, body: { detail } };
    }
    const key = settings.announcedKeys.get(name) ?? null;
    let reason = 'the board holds no key for it';
    if (key !== null) {
      const url = machine.location.replace(/\/$/, '');
      const outcome = await client.relay({ url, key }, what, action, settings.pollTimeoutMs);
      if (outcome.kind === 'answer')
        return this.passThrough(who, target, outcome.status, outcome.body);
      reason = `its location is unreachable (${outcome.error})`;
    }
    const queued = await this.deps.queue.add(name, what, action);
    if (queued === null) {
      const detail = `Too many actions are already queued for '${name}'`;
      await this.note(who, 'do', target, 'refused', 409, detail);
      return { status: 409, body: { detail } };
    }
    registry.setQueued(name, this.deps.queue.count(name));
    await this.note(who, 'do', target, 'queued', 200, `queued as ${queued.id}: ${reason}`);
    return { status: 200, body: { queued: true, id: queued.id, name, what, action } };
  }

  /** POST /api/report: remember the machine, hand over its queued actions, take its results. */
  async report(who: Who, report: Report): Promise<Answer> {
    const { registry, queue } = this.deps;
    const { name, location, results, key_proof: _p, key_proof_at: _at, ...overview } = report;
    const key = this.deps.settings.announcedKeys.get(name);
    const unproved =
      key === undefined ? null : this.keyProofs.problem(key, report, this.deps.clock.now());
    if (unproved !== null) {
      // The board would relay this machine's key to the reported location: only believe a
      // location reported by someone who holds the key.
      const detail = `A report for '${name}' must prove it holds the key the board keeps for it (key_proof): ${unproved}`;
      await this.note(who, 'report', name, 'refused', 403, detail);
      return { status: 403, body: { detail } };
    }
    // Past the room that announced machines' overviews share (max_announced_mb), a report is
    // refused as a new name past the cap is: a registration token cannot make the board hold
    // more than that, whatever names and sizes it sends.
    if (
      registry.get(name)?.origin !== 'configured' &&
      !registry.roomFor(name, JSON.stringify(overview).length)
    ) {
      const mb = this.deps.settings.maxAnnouncedBytes / (1024 * 1024);
      const detail = `The board's room for announced machines' overviews is full (max_announced_mb: ${mb}); forget some first`;
      await this.noteCapRefusal(who, detail, 'report(s) refused for want of room');
      return { status: 409, body: { detail } };
    }
    const found = registry.announce(name, location);
    if ('refused' in found) {
      if (found.refused === 'configured') {
        const detail = `'${name}' is a configured machine; the board polls it and refuses reports for it`;
        await this.note(who, 'report', name, 'refused', 409, detail);
        return { status: 409, body: { detail } };
      }
      const detail = `The board already has ${found.cap} announced machines; forget some first`;
      await this.noteCapRefusal(who, detail);
      return { status: 409, body: { detail } };
    }
    registry.observe(found.machine, { ok: true, overview, location });
    // A new machine's identity is on disk before its first report is acknowledged, so a
    // crash cannot make the board forget a machine it has answered (and queued for).
    if (found.created) await this.deps.persistIdentities?.();
    if (found.created)
      await this.note(who, 'announce', name, 'announced', 200, `announced from ${location}`);
    for (const result of results ?? []) await this.takeResult(who, name, result);
    const actions: HandedAction[] = [];
    for (const a of queue.forMachine(name)) {
      if (await queue.markDelivered(a.id)) {
        await this.note(who, 'do', targetOf(a), 'delivered', null, `handed over as ${a.id}`);
      }
      actions.push({
        id: a.id,
        what: a.what,
        action: a.action,
        requested_at: new Date(a.requestedAt).toISOString(),
      });
    }
    registry.setQueued(name, queue.count(name));
    return { status: 200, body: { ok: true, actions } };
  }

  /** DELETE /api/machines/{name}. */
  async forget(who: Who, name: string): Promise<Answer> {
    const machine = this.deps.registry.get(name);
    if (machine === undefined) {
      const detail = `No machine named '${name}' on this board`;
      await this.note(who, 'forget', name, 'refused', 404, detail);
      return { status: 404, body: { detail } };
    }
    if (machine.origin === 'configured') {
      const detail = `'${name}' is a configured machine; remove it from ${this.deps.settings.source}`;
      await this.note(who, 'forget', name, 'refused', 409, detail);
      return { status: 409, body: { detail } };
    }
    const dropped = this.deps.queue.forMachine(name);
    for (const a of dropped) await this.deps.queue.remove(a.id);
    this.deps.registry.forget(name);
    await this.deps.persistIdentities?.();
    const detail =
      dropped.length > 0 ? `forgotten; ${dropped.length} queued action(s) dropped` : 'forgotten';
    await this.note(who, 'forget', name, 'forgotten', 200, detail);
    return { status: 200, body: { ok: true, name, forgotten: true, dropped: dropped.length } };
  }

  /** Journals a request refused for its token, by address only. */
  async refusedToken(address: string, method: string, path: string, status: number): Promise<void> {
    await this.closeAuthWindow();
    const w = this.authWindow;
    if (w.journaled < AUTH_JOURNAL_PER_MINUTE) {
      w.journaled += 1;
      // Counted before the await: refusals arrive concurrently.
      const nth = w.journaled;
      const detail = `${status === 403 ? 'token not valid here' : 'wrong token'}: ${method} ${path} from ${address}`;
      await this.note('anonymous', 'auth', address, 'refused', status, detail);
      if (nth === AUTH_JOURNAL_PER_MINUTE) {
        await this.note(
          'anonymous',
          'auth',
          '*',
          'refused',
          null,
          `${AUTH_JOURNAL_PER_MINUTE} refused tokens this minute: more are counted, not journaled one by one`,
        );
      }
      return;
    }
    w.counted += 1;
    if (w.addresses.size < AUTH_ADDRESSES_MAX) w.addresses.add(address);
  }

  /** Ends the minute of refused tokens once it is over, journaling the count past the budget. */
  private async closeAuthWindow(): Promise<void> {
    const now = this.deps.clock.now();
    const w = this.authWindow;
    if (now - w.start < AUTH_WINDOW_MS) return;
    this.authWindow = { start: now, journaled: 0, counted: 0, addresses: new Set() };
    if (w.counted === 0) return;
    const from = new Date(w.start).toISOString();
    await this.note(
      'anonymous',
      'auth',
      '*',
      'refused',
      null,
      `${w.counted} more refused tokens from ${w.addresses.size}${w.addresses.size >= AUTH_ADDRESSES_MAX ? '+' : ''} address(es) in the minute from ${from}, not journaled one by one`,
    );
  }

  /** One sweep of the configured machines. */
  sweep(): Promise<void> {
    const { registry, settings, client, clock } = this.deps;
    return sweep(registry, settings.machines, client, clock, {
      timeoutMs: settings.pollTimeoutMs,
      concurrency: settings.sweepConcurrency,
      silent: this.silent,
    });
  }

  /** The periodic upkeep: stale announced machines go down, old queued actions expire. */
  async upkeep(): Promise<void> {
    const { registry, queue, settings } = this.deps;
    registry.markStale(settings.staleAfterMs);
    await this.closeAuthWindow();
    for (const a of queue.expired()) {
      await queue.remove(a.id);
      registry.setQueued(a.name, queue.count(a.name));
      await this.note(
        'board',
        'do',
        targetOf(a),
        'expired',
        null,
        `queued as ${a.id} for 24 h; never delivered a result`,
      );
    }
  }

  private async takeResult(who: Who, name: string, result: HandedResult): Promise<void> {
    const queued = this.deps.queue.get(result.id);
    if (queued === undefined || queued.name !== name) return;
    await this.deps.queue.remove(result.id);
    const outcome = outcomeOf(result.status, result.body);
    await this.note(
      who,
      'do',
      targetOf(queued),
      outcome,
      result.status,
      `result of ${result.id}: ${summary(result.body)}`,
    );
  }

  private async passThrough(
    who: Who,
    target: string,
    status: number,
    body: unknown,
  ): Promise<Answer> {
    await this.note(who, 'do', target, outcomeOf(status, body), status, summary(body));
    return { status, body };
  }

  private async noteCapRefusal(
    who: Who,
    detail: string,
    counted = 'report(s) of new names refused',
  ): Promise<void> {
    this.capRefusedSince += 1;
    const now = this.deps.clock.now();
    if (now - this.lastCapJournal < CAP_JOURNAL_INTERVAL_MS) return;
    this.lastCapJournal = now;
    const count = this.capRefusedSince;
    this.capRefusedSince = 0;
    await this.note(who, 'report', '*', 'refused', 409, `${detail} (${count} ${counted})`);
  }

  private note(
    who: Who,
    op: string,
    target: string,
    outcome: string,
    status: number | null,
    detail: string,
  ): Promise<JournalEntry> {
    return this.deps.journal.record({ who, op, target, outcome, status, detail });
  }
}

function targetOf(a: QueuedAction): string {
  return `${a.name}/${a.what}/${a.action}`;
}

/** done, failed or refused, from what the machine answered. */
export function outcomeOf(status: number, body: unknown): 'done' | 'failed' | 'refused' {
  if (status >= 200 && status < 300) {
    const ok = (body as { ok?: unknown } | null)?.ok;
    return ok === false ? 'failed' : 'done';
  }
  return status >= 400 && status < 500 ? 'refused' : 'failed';
}

/** A short description of a machine's answer for the journal. */
function summary(body: unknown): string {
  if (body !== null && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (typeof b.detail === 'string') return b.detail.slice(0, 300);
    if (typeof b.ok === 'boolean') {
      const code =
        b.exit_code === null || b.exit_code === undefined ? '' : ` (exit ${String(b.exit_code)})`;
      return `${b.ok ? 'ok' : 'not ok'}${code}`;
    }
  }
  return 'answered';
}
