import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import type { Who } from '../schemas.js';
import type { AgentClient, AgentTarget } from './agent-client.js';
import type { AgentReleases } from './agent-self.js';
import type { Answer } from './answer.js';
import type { JournalPolicy } from './journal-policy.js';
import type { Machine } from './machine.js';
import { clip, summary } from './outcome.js';
import type { Registry } from './registry.js';

/** Machines "update all" hands an update to at a time. */
export const UPDATE_BATCH = 10;
/** How long a batch waits for its machines' new checksum or outcome before the next starts. */
export const UPDATE_BATCH_WAIT_MS = 120_000;
/** An update asked for and not yet settled blocks another one for the machine this long. */
const PENDING_MS = UPDATE_BATCH_WAIT_MS;

/** An update handed (or to be handed) to one machine, not yet settled. */
interface Pending {
  id: string;
  askedAt: number;
  /** announced: waits for its next report; null once handed in a report answer. */
  queued: boolean;
}

export interface AgentUpdatesDeps {
  clock: Clock;
  registry: Registry;
  notes: JournalPolicy;
  releases: AgentReleases;
  client: AgentClient;
  /** Where a configured machine's agent is and its key; null: not a configured machine. */
  configured: (name: string) => AgentTarget | null;
  timeoutMs: () => number;
  onError: (error: unknown) => void;
}

/**
 * Updates from the board: one machine's (POST /api/machines/{name}/update), every machine's in
 * batches (POST /api/machines/update), and what the machines then report, journaled. What is
 * pending is kept in memory: a restart forgets it, and the update is simply asked for again.
 */
export class AgentUpdates {
  private readonly pending = new Map<string, Pending>();
  /** The last outcome `at` seen per machine, so each outcome is journaled once. */
  private readonly outcomesSeen = new Map<string, string>();
  private run: { waiting: string[]; batch: Set<string>; startedAt: number; who: Who } | null = null;
  private readonly startedAt: number;

  constructor(private readonly deps: AgentUpdatesDeps) {
    this.startedAt = deps.clock.now();
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
    if (p !== undefined && this.deps.clock.now() - p.askedAt < PENDING_MS)
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
    const refused = this.refusal(m);
    if (refused !== null) return this.deps.notes.refuse(who, 'update', name, 409, refused);
    return this.handTo(who, m);
  }

  /** Hands the update to `m`: relayed at once when configured, else queued for its report. */
  private async handTo(who: Who, m: Machine): Promise<Answer> {
    const { notes, clock } = this.deps;
    const id = randomUUID();
    const target = m.origin === 'configured' ? this.deps.configured(m.name) : null;
    if (target === null) {
      this.pending.set(m.name, { id, askedAt: clock.now(), queued: true });
      await notes.note(
        who,
        'update',
        m.name,
        'queued',
        202,
        `queued as ${id}: handed over at its next report`,
      );
      return { status: 202, body: { accepted: true, name: m.name, id, handed: 'queued' } };
    }
    this.pending.set(m.name, { id, askedAt: clock.now(), queued: false });
    const outcome = await this.deps.client.requestUpdate(target, this.deps.timeoutMs());
    if (outcome.kind === 'answer' && outcome.status === 202) {
      await notes.note(
        who,
        'update',
        m.name,
        'delivered',
        202,
        `relayed as ${id}: the agent took it`,
      );
      return { status: 202, body: { accepted: true, name: m.name, id, handed: 'relayed' } };
    }
    this.settle(m.name);
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

  /** POST /api/machines/update: every machine that can be updated (of `names`), in batches. */
  async requestAll(who: Who, names?: readonly string[]): Promise<Answer> {
    if (this.run !== null) {
      const left = this.run.waiting.length + this.run.batch.size;
      const detail = `An update of all machines is already under way (${left} machine(s) left)`;
      return this.deps.notes.refuse(who, 'update', '*', 409, detail);
    }
    const wanted = names === undefined ? null : new Set(names);
    const chosen: string[] = [];
    for (const m of this.deps.registry.all()) {
      if (wanted !== null && !wanted.has(m.name)) continue;
      if (m.state === 'up' && m.updateAvailable && this.refusal(m) === null) chosen.push(m.name);
    }
    chosen.sort();
    if (chosen.length === 0) return { status: 202, body: { machines: [] } };
    const detail = `${chosen.length} machine(s), ${UPDATE_BATCH} at a time`;
    await this.deps.notes.note(who, 'update', '*', 'queued', 202, detail);
    this.run = { waiting: chosen.slice(), batch: new Set(), startedAt: 0, who };
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
    for (const name of batch) run.batch.add(name);
    await Promise.all(
      batch.map(async (name) => {
        const m = this.deps.registry.get(name);
        // Gone, or updated meanwhile: nothing to hand it.
        if (m === undefined || this.refusal(m) !== null) return this.settle(name);
        const answer = await this.handTo(run.who, m);
        if (answer.status !== 202) this.settle(name);
      }),
    );
  }

  /** Every second: a batch whose machines did not all answer in time gives way to the next. */
  tick(): void {
    const run = this.run;
    if (run === null || this.deps.clock.now() - run.startedAt < UPDATE_BATCH_WAIT_MS) return;
    run.batch.clear();
    this.nextBatch().catch(this.deps.onError);
  }

  private settle(name: string): void {
    this.pending.delete(name);
    const run = this.run;
    if (run === null || !run.batch.delete(name) || run.batch.size > 0) return;
    this.nextBatch().catch(this.deps.onError);
  }

  /** What the answer to `name`'s report hands it (an update queued for it), if anything. */
  handOver(name: string): { id: string; requested_at: string } | undefined {
    const p = this.pending.get(name);
    if (p === undefined || !p.queued) return undefined;
    p.queued = false;
    const note = this.deps.notes.note(
      'board',
      'update',
      name,
      'delivered',
      null,
      `handed over as ${p.id}`,
    );
    note.catch(this.deps.onError);
    return { id: p.id, requested_at: new Date(p.askedAt).toISOString() };
  }

  /** A machine changed (a report, a poll): its new checksum or its update's outcome. */
  observe(m: Machine): void {
    const a = m.agent;
    if (a === null || (a.outcome === null && this.pending.size === 0)) return;
    const p = this.pending.get(m.name);
    const o = a.outcome;
    let fresh = false;
    if (o !== null) {
      const seen = this.outcomesSeen.get(m.name);
      // An outcome older than this board, seen first after a restart, was journaled before.
      fresh =
        seen !== o.at &&
        (seen !== undefined || p !== undefined || Date.parse(o.at) >= this.startedAt);
      if (seen !== o.at) this.outcomesSeen.set(m.name, o.at);
    }
    const served = a.file === null ? null : this.deps.releases.sha256(a.file);
    if (p !== undefined && served !== null && a.sha256 === served) {
      this.settle(m.name);
      this.journal(m.name, 'updated', `now runs the board's ${a.file} (${served.slice(0, 12)}…)`);
    } else if (fresh && o !== null && (o.state !== 'updated' || p !== undefined)) {
      if (p !== undefined) this.settle(m.name);
      this.journal(m.name, o.state, o.detail === '' ? o.state : o.detail);
    }
  }

  /** A machine was forgotten or removed. */
  removed(name: string): void {
    this.outcomesSeen.delete(name);
    if (this.pending.has(name)) this.settle(name);
  }

  private journal(name: string, outcome: string, detail: string): void {
    this.deps.notes.note('board', 'update', name, outcome, null, detail).catch(this.deps.onError);
  }
}
