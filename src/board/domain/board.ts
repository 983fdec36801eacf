import type { HandedResult } from '../../shared/wire/action.js';
import type { ActionName } from '../../shared/wire/common.js';
import { KeyProofCheck } from '../../shared/wire/key-proof.js';
import type { Report } from '../../shared/wire/report.js';
import type { Who } from '../schemas.js';
import type { AgentTarget } from './agent-client.js';
import type { Answer } from './answer.js';
import type { BoardDeps } from './board-deps.js';
import type { ChangeSet } from './change-set.js';
import type { Journal } from './journal.js';
import { JournalPolicy } from './journal-policy.js';
import { MachineKeys } from './machine-keys.js';
import { prepareOverview } from './metrics.js';
import { clip, noted, outcomeOf, summary, targetOf, type Via } from './outcome.js';
import { overviewText } from './overview-text.js';
import type { Registry } from './registry.js';
import { relayTimeoutMs } from './relay-timeout.js';
import { handOver, type ReportGate, refusedReport } from './report-checks.js';
import type { DomainSettings, MachineConfig } from './settings.js';
import { isStoreUnavailable } from './store-unavailable.js';
import { sweep } from './sweep.js';
import { ANONYMOUS_WHO, BOARD_WHO, registrationWho } from './who.js';

/**
 * The board's use cases: relay or queue an action, take a report, forget a machine, sweep,
 * and the periodic upkeep. Plain TypeScript; the HTTP layer calls one method per request.
 */
export class Board {
  /** What goes into the journal, and how much of what outsiders cause. */
  readonly notes: JournalPolicy;
  /** Configured machines whose last poll timed out (the sweep plans with it). */
  private readonly silent = new Set<string>();
  private readonly configured: Map<string, MachineConfig>;
  /** Key proofs accepted per name (restored from the store at start). */
  readonly keyProofs: KeyProofCheck;
  /** The keys held for announced machines. */
  readonly keys: MachineKeys;
  private readonly gate: ReportGate;

  constructor(private readonly deps: BoardDeps) {
    this.keyProofs = deps.keyProofs ?? new KeyProofCheck();
    this.notes = new JournalPolicy(deps.journal, deps.clock);
    this.configured = new Map(deps.settings.machines.map((m) => [m.name, m]));
    this.keys = new MachineKeys(deps.settings.announcedKeys, deps.enrollments);
    this.gate = { keys: this.keys, keyProofs: this.keyProofs, notes: this.notes, deps };
  }

  /**
   * Takes a reloaded config: later requests, sweeps and upkeep use `settings`; the configured
   * machines become exactly its `machines`. What is in flight finishes with the settings it began with.
   */
  reconfigure(settings: DomainSettings): { added: string[]; removed: string[] } {
    this.deps.settings = settings;
    this.configured.clear();
    for (const m of settings.machines) this.configured.set(m.name, m);
    for (const name of this.silent) if (!this.configured.has(name)) this.silent.delete(name);
    const changed = this.deps.registry.setConfigured(settings.machines);
    this.keyGiven(this.keys.setAnnounced(settings.announcedKeys));
    return changed;
  }

  /**
   * `names` were given a key (enrolled, or a new key in announced_keys): a location no report
   * proved with it must not receive it. An unproven announcement under the name, or under a
   * spelling of it in another case, is forgotten; a proven one waits for a report proving the
   * new key before anything is relayed to it.
   */
  keyGiven(names: readonly string[]): void {
    const { registry } = this.deps;
    for (const name of names) {
      const same = registry.sameName(name);
      const machine = same === undefined ? undefined : registry.get(same);
      if (machine === undefined || machine.origin !== 'announced') continue;
      if (machine.name === name && machine.verified) {
        registry.unprove(machine);
        continue;
      }
      if (machine.name !== name && this.keys.keyFor(machine.name) !== undefined) continue;
      this.dropUnproven(machine.name, name);
    }
  }

  get registry(): Registry {
    return this.deps.registry;
  }

  get journal(): Journal {
    return this.deps.journal;
  }

  /** POST /api/do/{name}/{what}/{action}, and MCP's do_action (`via`: named in the journal). */
  async doAction(
    who: Who,
    name: string,
    what: string,
    action: ActionName,
    via?: Via,
  ): Promise<Answer> {
    const { registry, settings, client } = this.deps;
    const target = `${name}/${what}/${action}`;
    const machine = registry.get(name);
    // A slow but healthy stop is waited for: the service states how long its actions may take.
    const relayMs = () => relayTimeoutMs(registry.overview(name), what, settings.pollTimeoutMs);
    // A name added from the board that has not reported yet: its action waits for it.
    if (machine === undefined && this.keyFor(name) === undefined) {
      const detail = `No machine named '${name}' on this board`;
      await this.notes.refuse(who, 'do', target, 404, noted(detail, via));
      return { status: 404, body: { detail } };
    }
    if (machine?.origin === 'configured') {
      const config = this.configured.get(name);
      const agent: AgentTarget = {
        url: config?.url ?? machine.location,
        key: config?.key ?? null,
        ca: config?.ca ?? settings.ca,
      };
      const outcome = await client.relay(agent, what, action, relayMs());
      if (outcome.kind === 'answer')
        return this.passThrough(who, target, outcome.status, outcome.body, via);
      const status = outcome.kind === 'timeout' ? 504 : 502;
      const detail = `Machine '${name}' is unreachable: ${clip(outcome.error)}`;
      this.actionFailed(name, what, action, status, detail);
      await this.notes.note(who, 'do', target, 'failed', status, noted(detail, via));
      return { status, body: { detail } };
    }
    // The key goes only to a location that a report proving that key gave (keyGiven).
    const key = this.keyFor(name) ?? null;
    let reason = 'the board holds no key for it';
    if (key !== null && machine?.verified !== true) {
      reason = 'no report has proved its key yet, so its location is not trusted with it';
    } else if (key !== null && machine !== undefined) {
      const url = machine.location.replace(/\/$/, '');
      const outcome = await client.relay({ url, key, ca: settings.ca }, what, action, relayMs());
      if (outcome.kind === 'answer')
        return this.passThrough(who, target, outcome.status, outcome.body, via);
      reason = `its location is unreachable (${clip(outcome.error)})`;
    }
    // What is acknowledged is never lost on kill -9: the machine's identity is on disk before
    // an action queued for it is (reports themselves write nothing).
    await this.deps.persistIdentities?.();
    const queued = await this.deps.queue.add(name, what, action);
    if (queued === null) {
      const detail = `Too many actions are already queued for '${name}'`;
      await this.notes.refuse(who, 'do', target, 409, noted(detail, via));
      return { status: 409, body: { detail } };
    }
    registry.setQueued(name, this.deps.queue.count(name));
    try {
      const detail = `queued as ${queued.id}: ${reason}`;
      await this.notes.note(who, 'do', target, 'queued', 200, noted(detail, via));
    } catch (error) {
      // The action is kept and will be handed over: answering 503 now would make the client
      // queue it twice. Its journal entry is lost (a nearly full disk took one write and not
      // the other); the store's health counted the failure.
      if (!isStoreUnavailable(error)) throw error;
    }
    return { status: 200, body: { queued: true, id: queued.id, name, what, action } };
  }

  /** POST /api/report: remember the machine, hand over its queued actions, take its results. */
  async report(sender: Who, report: Report): Promise<Answer> {
    const { registry, queue, settings } = this.deps;
    // A registration-token holder is the machine it announces (the audit names it).
    const who = sender.word === 'registration' ? registrationWho(report.name) : sender;
    const {
      name,
      location,
      results,
      key_proof: _p,
      key_proof_at: _at,
      interval_s: intervalS,
      ...overview
    } = report;
    const key = this.keyFor(name);
    const refused = await refusedReport(this.gate, who, report, key);
    if (refused !== null) return refused;
    // Past the room that announced machines' overviews share (max_announced_mb), a report is
    // refused as a new name past the cap is: a registration token cannot make the board hold
    // more than that, whatever names and sizes it sends.
    const existing = registry.get(name);
    const overviewJson = overviewText(report, overview);
    const overviewLength =
      typeof overviewJson === 'string' ? Buffer.byteLength(overviewJson) : overviewJson.length;
    if (existing?.origin !== 'configured' && !registry.roomFor(name, overviewLength)) {
      const mb = settings.maxAnnouncedBytes / (1024 * 1024);
      const detail = `The board's room for announced machines' overviews is full (max_announced_mb: ${mb}); forget some first`;
      await this.notes.capRefusal(who, detail, 'report(s) refused for want of room');
      return { status: 409, body: { detail } };
    }
    // The name with a key wins over an unproven spelling of it in another case.
    const same = key === undefined ? undefined : registry.sameName(name);
    if (same !== undefined && same !== name && this.keys.keyFor(same) === undefined) {
      this.dropUnproven(same, name);
    }
    const found = registry.announce(name, location);
    if ('refused' in found) {
      if (found.refused === 'configured') {
        const detail = `'${name}' is a configured machine; the board polls it and refuses reports for it`;
        return this.notes.refuse(who, 'report', name, 409, detail);
      }
      if (found.refused === 'lookalike') {
        const detail = `'${name}' differs only in case from '${found.existing}' on this board; names are unique without regard to case`;
        return this.notes.refuse(who, 'report', name, 409, detail);
      }
      const detail = `The board already has ${found.cap} announced machines; forget some first`;
      await this.notes.capRefusal(who, detail);
      return { status: 409, body: { detail } };
    }
    registry.observe(found.machine, {
      ok: true,
      prepared: prepareOverview(overview, overviewJson, null),
      location,
      intervalMs: typeof intervalS === 'number' ? intervalS * 1000 : null,
      verified: key !== undefined,
    });
    // A report executes nothing and stores nothing on disk: the new
    // identity is saved after the next sweep, and before any action is queued for it. The
    // journal entry of a new name is written behind the answer.
    if (found.created) this.background(this.notes.announced(who, name, location));
    for (const result of results ?? []) await this.takeResult(who, name, result);
    const actions = await handOver(queue, this.notes, who, name);
    registry.setQueued(name, queue.count(name));
    registry.changes.reportTaken();
    const handing = this.deps.handOver?.(name);
    // Awaited only when an update is queued for it: no extra turn per report otherwise.
    const update = handing instanceof Promise ? await handing : handing;
    const checks = this.deps.handChecks?.(name, report.checks_version);
    return {
      status: 200,
      body: {
        ok: true,
        actions,
        ...(update === undefined ? {} : { update }),
        ...(checks === undefined ? {} : { checks }),
      },
    };
  }

  /** The key the board holds for an announced machine: board.yaml's, or its enrollment's. */
  keyFor(name: string): string | undefined {
    return this.keys.keyFor(name);
  }

  /** Forgets an announcement no key proved, because `keyed` now holds a key (journaled). */
  private dropUnproven(name: string, keyed: string): void {
    const machine = this.deps.registry.get(name);
    if (machine === undefined || machine.origin !== 'announced' || machine.verified) return;
    this.deps.registry.forget(name);
    this.background(this.deps.forgotten?.(name, false) ?? Promise.resolve());
    const detail = `an unproven announcement, forgotten: '${keyed}' was given a key`;
    this.background(this.notes.note(BOARD_WHO, 'forget', name, 'forgotten', null, detail));
  }

  /** DELETE /api/machines/{name}: an enrolled machine's key is revoked first. */
  async forget(who: Who, name: string): Promise<Answer> {
    const machine = this.deps.registry.get(name);
    const revoked = (await this.deps.enrollments?.revoke(name)) === true;
    if (machine === undefined && revoked) {
      await this.deps.forgotten?.(name, true);
      await this.notes.note(
        who,
        'forget',
        name,
        'forgotten',
        200,
        'key revoked (it never reported)',
      );
      return { status: 200, body: { ok: true, name, forgotten: true, dropped: 0 } };
    }
    if (machine === undefined) {
      const detail = `No machine named '${name}' on this board`;
      return this.notes.refuse(who, 'forget', name, 404, detail);
    }
    if (machine.origin === 'configured') {
      const detail = `'${name}' is a configured machine; remove it from ${this.deps.settings.source}`;
      return this.notes.refuse(who, 'forget', name, 409, detail);
    }
    const dropped = this.deps.queue.forMachine(name);
    for (const a of dropped) await this.deps.queue.remove(a.id);
    this.deps.registry.forget(name);
    await this.deps.persistIdentities?.();
    await this.deps.forgotten?.(name, revoked);
    const detail =
      (revoked ? 'forgotten, key revoked' : 'forgotten') +
      (dropped.length > 0 ? `; ${dropped.length} queued action(s) dropped` : '');
    await this.notes.note(who, 'forget', name, 'forgotten', 200, detail);
    return { status: 200, body: { ok: true, name, forgotten: true, dropped: dropped.length } };
  }

  /** Journals a request refused for its token, by address only. */
  async refusedToken(address: string, method: string, path: string, status: number): Promise<void> {
    const detail = `${status === 403 ? 'token not valid here' : 'wrong token'}: ${method} ${clip(path)} from ${address}`;
    await this.notes.refuse(ANONYMOUS_WHO, 'auth', address, status, detail, address);
  }

  /**
   * One sweep of the configured machines, then the tick: the batch of everything since the
   * last one is closed and handed to its consumers, and new identities are saved.
   */
  async sweep(): Promise<ChangeSet> {
    const { registry, settings, client, clock } = this.deps;
    const startedAt = clock.now();
    const owns = this.deps.owns;
    const mine =
      owns === undefined ? settings.machines : settings.machines.filter((m) => owns(m.name));
    await sweep(registry, mine, client, clock, {
      timeoutMs: settings.pollTimeoutMs,
      concurrency: settings.sweepConcurrency,
      silent: this.silent,
      ...(this.deps.polledChecks === undefined ? {} : { polled: this.deps.polledChecks }),
    });
    const set = registry.changes.close(
      clock.now(),
      settings.machines.length > 0 ? clock.now() - startedAt : null,
      () => registry.all(),
      registry.size(),
      this.deps.onError ?? (() => undefined),
    );
    await this.deps.persistIdentities?.();
    return set;
  }

  /** The periodic upkeep: stale announced machines go down, old queued actions expire. */
  async upkeep(): Promise<void> {
    const { registry, queue, settings } = this.deps;
    registry.markStale(settings.staleAfterMs, this.deps.owns);
    await this.notes.closeWindow();
    for (const a of queue.expired()) {
      const taken = await queue.remove(a.id);
      registry.setQueued(a.name, queue.count(a.name));
      // Of several boards, the one that took it out journals it.
      if (taken === undefined) continue;
      await this.notes.note(
        BOARD_WHO,
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
    // Of several boards given the same result, the one that takes it out journals it, once.
    if ((await this.deps.queue.remove(result.id)) === undefined) return;
    const outcome = outcomeOf(result.status, result.body);
    const detail = `result of ${result.id}: ${summary(result.body)}`;
    if (outcome === 'failed')
      this.actionFailed(queued.name, queued.what, queued.action, result.status, detail);
    await this.notes.note(who, 'do', targetOf(queued), outcome, result.status, detail);
  }

  private async passThrough(
    who: Who,
    target: string,
    status: number,
    body: unknown,
    via: Via | undefined,
  ): Promise<Answer> {
    const outcome = outcomeOf(status, body);
    const detail = summary(body);
    if (outcome === 'failed') {
      const [name = '', what = '', action = ''] = target.split('/');
      this.actionFailed(name, what, action, status, detail);
    }
    await this.notes.note(who, 'do', target, outcome, status, noted(detail, via));
    return { status, body };
  }

  private actionFailed(
    name: string,
    what: string,
    action: string,
    status: number | null,
    detail: string,
  ): void {
    const at = this.deps.clock.now();
    this.deps.registry.changes.actionFailed({ name, at, what, action, status, detail });
  }

  /** Runs `work` behind the answer; a failure is reported, never unhandled. */
  private background(work: Promise<unknown>): void {
    work.catch((error: unknown) => this.deps.onError?.(error));
  }
}
