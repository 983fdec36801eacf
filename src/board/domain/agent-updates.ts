import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import type { Who } from '../schemas.js';
import type { AgentClient, AgentTarget } from './agent-client.js';
import type { AgentReleases } from './agent-self.js';
import type { Answer } from './answer.js';
import type { JournalPolicy } from './journal-policy.js';
import type { Machine } from './machine.js';
import { clip, summary } from './outcome.js';
import type { PendingUpdateRecord, PendingUpdateTable } from './pending-updates.js';
import type { Registry } from './registry.js';
import { BOARD_WHO, machineWho } from './who.js';

/** Machines "update all" hands an update to at a time. */
export const UPDATE_BATCH = 10;
/** A batch that hears nothing for this many report intervals of its slowest machine gives way. */
export const UPDATE_BATCH_INTERVALS = 3;
/** ...and one that still hears from its machines, after this long. */
export const UPDATE_BATCH_WAIT_MAX_MS = 120_000;
/** An update asked for and not yet settled blocks another one for the machine this long. */
const PENDING_MS = 120_000;
/** A pending update nobody saw finish is dropped from the store after this long. */
const PENDING_KEPT_MS = 3_600_000;

export interface AgentUpdatesDeps {
  clock: Clock;
  registry: Registry;
  notes: JournalPolicy;
  releases: AgentReleases;
  /** Reads the served files' sums again (a file replaced a moment ago); absent: never stale. */
  refreshReleases?: () => Promise<void>;
  /** Where pending updates are kept (shared by the boards of a cluster). */
  table: PendingUpdateTable;
  /** What the store held at start. */
  loaded: readonly PendingUpdateRecord[];
  client: AgentClient;
  /** Where a configured machine's agent is and its key; null: not a configured machine. */
  configured: (name: string) => AgentTarget | null;
  timeoutMs: () => number;
  /** How often the board hears from `m` (its report interval, or the board's sweep), in ms. */
  intervalMs: (m: Machine) => number;
  onError: (error: unknown) => void;
}

/** An update in a report's answer. */
export interface HandedUpdate {
  id: string;
  requested_at: string;
}

/** Quotes what a machine said, as its words (escaped, one line). */
const quoted = (text: string): string => JSON.stringify(text);

/**
 * Updates from the board: one machine's (POST /api/machines/{name}/update), every machine's in
 * batches (POST /api/machines/update), and what the machines then report, journaled. What is
 * pending is kept in the store, so a restart or another board of the cluster carries it on; an
 * outcome is journaled only for an update a board handed and did not yet see finish, once.
 */
export class AgentUpdates {
  private readonly pending = new Map<string, PendingUpdateRecord>();
  private run: {
    waiting: string[];
    batch: Set<string>;
    startedAt: number;
    waitMs: number;
    who: Who;
  } | null = null;

  constructor(private readonly deps: AgentUpdatesDeps) {
    this.sync(deps.loaded);
  }

  /** Takes the store's pending updates (at start; where boards share it, at each read). */
  sync(rows: readonly PendingUpdateRecord[]): void {
    this.pending.clear();
    for (const r of rows) this.pending.set(r.name, { ...r });
  }

  /** Why `m` cannot be updated now, or null: it can. */
  private refusal(m: Machine): string | null {
    const a = m.agent;
    if (a === null || a.updates !== 'on')
      return `'${m.name}' does not take updates from the board (update_from_board is off in its agent's config)`;
    if (a.file === null || a.sha256 === null)
      return `'${m.name}' does not run from one agent file, so it cannot be updated from the board`;
    const served = this.deps.releases.sha256(a.file);
    if (served === null) return `This board does not serve ${a.file}, the file '${m.name}' runs`;
    if (served === a.sha256) return `'${m.name}' already runs the board's ${a.file}`;
    const p = this.pending.get(m.name);
    if (p !== undefined && this.deps.clock.now() - p.asked_at < PENDING_MS)
      return `An update of '${m.name}' is already under way`;
    return null;
  }

  /** POST /api/machines/{name}/update. */
  async request(who: Who, name: string): Promise<Answer> {
    const m = this.deps.registry.get(name);
    if (m === undefined) {
      const detail = `No machine named '${name}' on this board`;
      return this.deps.notes.refuse(who, 'update', name, 404, detail);
    }
    let refused = this.refusal(m);
    if (refused !== null && this.deps.refreshReleases !== undefined) {
      // The served file may have been replaced since the sums were last read: read them again.
      await this.deps.refreshReleases();
      refused = this.refusal(m);
    }
    if (refused !== null) return this.deps.notes.refuse(who, 'update', name, 409, refused);
    return this.handTo(who, m);
  }

  /** Hands the update to `m`: relayed at once when configured, else queued for its report. */
  private async handTo(who: Who, m: Machine): Promise<Answer> {
    const { notes, clock } = this.deps;
    const id = randomUUID();
    const target = m.origin === 'configured' ? this.deps.configured(m.name) : null;
    const row: PendingUpdateRecord = {
      name: m.name,
      id,
      asked_at: clock.now(),
      queued: target === null,
      prior_at: m.agent?.outcome?.at ?? null,
    };
    // Kept before it is handed: a restart, or another board, sees it finish.
    await this.deps.table.put(row);
    this.pending.set(m.name, row);
    if (target === null) {
      const detail = `queued as ${id}: handed over at its next report`;
      await notes.note(who, 'update', m.name, 'queued', 202, detail);
      return { status: 202, body: { accepted: true, name: m.name, id, handed: 'queued' } };
    }
    const outcome = await this.deps.client.requestUpdate(target, this.deps.timeoutMs());
    if (outcome.kind === 'answer' && outcome.status === 202) {
      const detail = `relayed as ${id}: the agent took it`;
      await notes.note(who, 'update', m.name, 'delivered', 202, detail);
      return { status: 202, body: { accepted: true, name: m.name, id, handed: 'relayed' } };
    }
    this.drop(row);
    if (outcome.kind === 'answer') {
      const detail = `the agent refused: ${summary(outcome.body)}`;
      const status = outcome.status === 409 ? 409 : 502;
      await notes.note(who, 'update', m.name, 'refused', outcome.status, detail);
      return { status, body: { detail } };
    }
    const status = outcome.kind === 'timeout' ? 504 : 502;
    const detail = `Machine '${m.name}' is unreachable: ${clip(outcome.error)}`;
    await notes.note(who, 'update', m.name, 'failed', status, detail);
    return { status, body: { detail } };
  }

  /**
   * POST /api/machines/update: every configured or verified machine that can be updated (of
   * `names`), in batches. An unverified announced name is anyone's with the registration token.
   */
  async requestAll(who: Who, names?: readonly string[]): Promise<Answer> {
    if (this.run !== null) {
      const left = this.run.waiting.length + this.run.batch.size;
      const detail = `An update of all machines is already under way (${left} machine(s) left)`;
      return this.deps.notes.refuse(who, 'update', '*', 409, detail);
    }
    await this.deps.refreshReleases?.();
    const wanted = names === undefined ? null : new Set(names);
    const chosen: string[] = [];
    for (const m of this.deps.registry.all()) {
      if (wanted !== null && !wanted.has(m.name)) continue;
      if (m.origin !== 'configured' && !m.verified) continue;
      if (m.state === 'up' && m.updateAvailable && this.refusal(m) === null) chosen.push(m.name);
    }
    chosen.sort();
    if (chosen.length === 0) return { status: 202, body: { machines: [] } };
    const detail = `${chosen.length} machine(s), ${UPDATE_BATCH} at a time`;
    await this.deps.notes.note(who, 'update', '*', 'queued', 202, detail);
    this.run = { waiting: chosen.slice(), batch: new Set(), startedAt: 0, waitMs: 0, who };
    await this.nextBatch();
    return { status: 202, body: { machines: chosen } };
  }

  /** Whether "update all" is under way. */
  get running(): boolean {
    return this.run !== null;
  }

  private async nextBatch(): Promise<void> {
    const run = this.run;
    if (run === null) return;
    run.batch.clear();
    run.startedAt = this.deps.clock.now();
    const batch = run.waiting.splice(0, UPDATE_BATCH);
    if (batch.length === 0) {
      this.run = null;
      await this.deps.notes.note(run.who, 'update', '*', 'done', null, 'every batch settled');
      return;
    }
    let slowest = 0;
    for (const name of batch) {
      run.batch.add(name);
      const m = this.deps.registry.get(name);
      if (m !== undefined) slowest = Math.max(slowest, this.deps.intervalMs(m));
    }
    run.waitMs = Math.min(UPDATE_BATCH_WAIT_MAX_MS, UPDATE_BATCH_INTERVALS * slowest);
    await Promise.all(
      batch.map(async (name) => {
        const m = this.deps.registry.get(name);
        // Gone, or updated meanwhile: nothing to hand it.
        if (m === undefined || this.refusal(m) !== null) return this.leaveBatch(name);
        const answer = await this.handTo(run.who, m);
        if (answer.status !== 202) this.leaveBatch(name);
      }),
    );
  }

  /**
   * Every second: a batch that heard nothing from its machines still waited for (no report, no
   * poll) for three of their report intervals gives way to the next, and any after two minutes;
   * updates nobody saw finish for an hour are dropped.
   */
  tick(): void {
    const now = this.deps.clock.now();
    for (const p of this.pending.values()) {
      if (now - p.asked_at >= PENDING_KEPT_MS) this.drop(p);
    }
    const run = this.run;
    if (run === null) return;
    let heard = run.startedAt;
    for (const name of run.batch) {
      heard = Math.max(heard, this.deps.registry.get(name)?.lastSeen ?? 0);
    }
    if (now - heard < run.waitMs && now - run.startedAt < UPDATE_BATCH_WAIT_MAX_MS) return;
    run.batch.clear();
    this.nextBatch().catch(this.deps.onError);
  }

  /** `name` is done with in the batch under way (if it is in it). */
  private leaveBatch(name: string): void {
    const run = this.run;
    if (run === null || !run.batch.delete(name) || run.batch.size > 0) return;
    this.nextBatch().catch(this.deps.onError);
  }

  /** Forgets a pending update here and in the store; true from the store if this board did. */
  private async forget(p: PendingUpdateRecord): Promise<boolean> {
    if (this.pending.get(p.name)?.id === p.id) this.pending.delete(p.name);
    this.leaveBatch(p.name);
    return this.deps.table.remove(p.name, p.id);
  }

  private drop(p: PendingUpdateRecord): void {
    this.forget(p).catch(this.deps.onError);
  }

  /**
   * What the answer to `name`'s report hands it (an update queued for it), if anything: at once
   * when nothing is queued (no promise per report), else once the store says this board hands it.
   */
  handOver(name: string): HandedUpdate | undefined | Promise<HandedUpdate | undefined> {
    const p = this.pending.get(name);
    if (p === undefined || !p.queued) return undefined;
    return this.hand(p);
  }

  private async hand(p: PendingUpdateRecord): Promise<HandedUpdate | undefined> {
    const { name } = p;
    p.queued = false;
    let won: boolean;
    try {
      // Of several boards, the one whose hand-over the store takes hands it.
      won = await this.deps.table.hand(name, p.id);
    } catch (error) {
      p.queued = true;
      this.deps.onError(error);
      return undefined;
    }
    if (!won) return undefined;
    const note = this.deps.notes.reported(
      BOARD_WHO,
      'update',
      name,
      'delivered',
      `handed over as ${p.id}`,
    );
    note.catch(this.deps.onError);
    return { id: p.id, requested_at: new Date(p.asked_at).toISOString() };
  }

  /**
   * A machine changed (a report, a poll): its new checksum or its update's outcome, journaled
   * only for an update handed to it and not yet seen to finish, as the machine's words.
   */
  observe(m: Machine): void {
    if (this.pending.size === 0) return;
    const p = this.pending.get(m.name);
    const a = m.agent;
    if (p === undefined || p.queued || a === null) return;
    const served = a.file === null ? null : this.deps.releases.sha256(a.file);
    const o = a.outcome;
    if (served !== null && a.sha256 === served) {
      this.finish(
        p,
        'updated',
        `its report says it runs the board's ${a.file} (${served.slice(0, 12)}…)`,
      );
    } else if (o !== null && o.at !== p.prior_at) {
      const words = o.detail === '' ? '' : `: ${quoted(o.detail)}`;
      this.finish(p, o.state, `its agent reports ${o.state}${words}`);
    }
  }

  /** Settles `p`: the board that takes it from the store journals it, as the machine's. */
  private finish(p: PendingUpdateRecord, outcome: string, detail: string): void {
    this.forget(p)
      .catch(() => true)
      .then((won) =>
        won
          ? this.deps.notes.reported(machineWho(p.name), 'update', p.name, outcome, detail)
          : undefined,
      )
      .catch(this.deps.onError);
  }

  /** A machine was forgotten or removed. */
  removed(name: string): void {
    const p = this.pending.get(name);
    if (p !== undefined) this.drop(p);
  }
}
