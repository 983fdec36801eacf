import { describe, expect, it } from 'vitest';
import { FakeClient } from '../../../test/helpers/board-kit.js';
import { ManualClock } from '../../shared/clock.js';
import { boardSettings } from '../config/config.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { machineMemory } from '../view/machine-memory.js';
import { ActionQueue } from './action-queue.js';
import type { AgentReleases } from './agent-self.js';
import { AgentUpdates, UPDATE_BATCH_WAIT_MAX_MS } from './agent-updates.js';
import { Board } from './board.js';
import { EventHub } from './events.js';
import { Journal } from './journal.js';
import { JournalPolicy } from './journal-policy.js';
import { Registry } from './registry.js';
import { BOARD_WHO, registrationWho } from './who.js';

const OLD = 'a'.repeat(64);
const NEW = 'b'.repeat(64);
const WEB1 = 'http://web1.invalid:8701';

function kit(store = new MemoryStore()) {
  const settings = boardSettings(
    { board_token: 'board-token-0123456789', machines: [{ name: 'web1', url: WEB1, key: 'k' }] },
    '/etc/panoptes/board.yaml',
    '/etc/panoptes',
  );
  const clock = new ManualClock();
  const client = new FakeClient();
  const events = new EventHub();
  const sums = new Map<string, string>([['panoptes-agent.mjs', NEW]]);
  const releases: AgentReleases = { sha256: (file) => sums.get(file) ?? null };
  const registry = new Registry(clock, events, settings.machines, 100, machineMemory(clock), {
    releases,
  });
  const journal = new Journal(clock, events, store.journal, []);
  const notes = new JournalPolicy(journal, clock);
  const updates = new AgentUpdates({
    clock,
    registry,
    notes,
    releases,
    table: store.updates,
    loaded: [],
    client,
    configured: (name) => (name === 'web1' ? { url: WEB1, key: 'k' } : null),
    timeoutMs: () => 1000,
    intervalMs: (m) => m.intervalMs ?? 5000,
    onError: (error) => {
      throw error;
    },
  });
  events.subscribe({ machineChanged: (m) => updates.observe(m) });
  const board = new Board({
    settings,
    clock,
    client,
    registry,
    queue: new ActionQueue(clock, store.queue, []),
    journal,
    handOver: (name) => updates.handOver(name),
  });
  const report = (name: string, self: Record<string, unknown>) =>
    board.report(registrationWho(''), {
      name,
      location: `http://127.0.0.1:1/${name}`,
      version: '1.0.0',
      ...self,
    } as never);
  const entries = () =>
    journal
      .recent(1000)
      .filter((e) => e.op === 'update')
      .map((e) => `${e.target} ${e.outcome}`)
      .reverse();
  /** As if its report had proved its key (the unit tests hold no keys). */
  const verify = (name: string) => {
    const m = registry.get(name);
    if (m === undefined) throw new Error(name);
    registry.observe(m, {
      ok: true,
      overview: { version: '1.0.0', ...optedIn() },
      location: m.location ?? '',
      intervalMs: 20_000,
      verified: true,
    });
  };
  return { clock, client, registry, updates, board, report, entries, sums, journal, verify, store };
}

const optedIn = (sha = OLD) => ({
  updates: 'on',
  agent_file: 'panoptes-agent.mjs',
  agent_sha256: sha,
});
const flush = () => new Promise((r) => setImmediate(r));

describe('the agent record', () => {
  it('says update_available when the board serves the file the machine runs, with another sum', async () => {
    const k = kit();
    await k.report('lab1', optedIn());
    await k.report('lab2', optedIn(NEW));
    await k.report('lab3', { agent_sha256: OLD });
    await k.report('lab4', { ...optedIn(), agent_file: 'panoptes-agent-linux-x64' });
    const record = (name: string) => {
      const m = k.registry.get(name);
      if (m === undefined) throw new Error(name);
      return JSON.parse(k.registry.memory.recordBytes(m).toString()).agent;
    };
    expect(record('lab1')).toEqual({
      version: '1.0.0',
      sha256: OLD,
      update_available: true,
      updates: 'on',
      last_update: null,
    });
    expect(record('lab2').update_available).toBe(false);
    expect(record('lab3')).toEqual({
      version: '1.0.0',
      sha256: OLD,
      update_available: false,
      updates: 'off',
      last_update: null,
    });
    // The board serves no binary.
    expect(record('lab4').update_available).toBe(false);
    // The board's file changes: lab2 is now behind, lab1 current.
    k.sums.set('panoptes-agent.mjs', OLD);
    k.registry.releasesChanged();
    expect(record('lab1').update_available).toBe(false);
    expect(record('lab2').update_available).toBe(true);
  });
});

describe('updating one machine', () => {
  it('refuses an unknown machine (404) and one that cannot be updated (409)', async () => {
    const k = kit();
    await k.report('off', { ...optedIn(), updates: 'off' });
    await k.report('nofile', { updates: 'on' });
    await k.report('binary', { ...optedIn(), agent_file: 'panoptes-agent-linux-arm64' });
    await k.report('current', optedIn(NEW));
    expect((await k.updates.request(BOARD_WHO, 'nosuch')).status).toBe(404);
    const details = [];
    for (const name of ['off', 'nofile', 'binary', 'current']) {
      const a = await k.updates.request(BOARD_WHO, name);
      expect(a.status).toBe(409);
      details.push((a.body as { detail: string }).detail);
    }
    expect(details[0]).toMatch(/update_from_board/);
    expect(details[1]).toMatch(/one agent file/);
    expect(details[2]).toMatch(/does not serve panoptes-agent-linux-arm64/);
    expect(details[3]).toMatch(/already runs/);
  });

  it("queues an announced machine's update for its next report, and journals it updated", async () => {
    const k = kit();
    await k.report('lab1', optedIn());
    const asked = await k.updates.request(BOARD_WHO, 'lab1');
    expect(asked).toMatchObject({ status: 202, body: { handed: 'queued' } });
    expect((await k.updates.request(BOARD_WHO, 'lab1')).status).toBe(409);
    const answer = await k.report('lab1', optedIn());
    const update = (answer.body as { update?: { id: string } }).update;
    expect(update?.id).toBe((asked.body as { id: string }).id);
    // Handed once.
    expect((await k.report('lab1', optedIn())).body).not.toHaveProperty('update');
    await k.report('lab1', optedIn(NEW));
    await flush();
    expect(k.entries()).toEqual(['lab1 queued', 'lab1 refused', 'lab1 delivered', 'lab1 updated']);
  });

  it("relays a configured machine's update to its agent at once", async () => {
    const k = kit();
    k.client.updateAnswers.set(WEB1, { kind: 'answer', status: 202, body: { accepted: true } });
    await k.registry.observe(k.registry.get('web1') as never, {
      ok: true,
      overview: { version: '1.0.0', ...optedIn() },
    });
    const asked = await k.updates.request(BOARD_WHO, 'web1');
    expect(asked).toMatchObject({ status: 202, body: { handed: 'relayed' } });
    expect(k.client.updates).toEqual([{ url: WEB1, key: 'k' }]);
    k.client.updateAnswers.set(WEB1, {
      kind: 'answer',
      status: 409,
      body: { detail: 'updates are off' },
    });
    k.clock.advance(UPDATE_BATCH_WAIT_MAX_MS);
    const refused = await k.updates.request(BOARD_WHO, 'web1');
    expect(refused).toEqual({
      status: 409,
      body: { detail: 'the agent refused: updates are off' },
    });
  });

  it("journals the agent's outcome once per outcome", async () => {
    const k = kit();
    await k.report('lab1', optedIn());
    await k.updates.request(BOARD_WHO, 'lab1');
    await k.report('lab1', optedIn());
    const outcome = {
      state: 'rolled_back',
      to_sha256: NEW,
      detail: 'the new file did not report within a minute',
      at: new Date(k.clock.now()).toISOString(),
    };
    await k.report('lab1', { ...optedIn(), update_outcome: outcome });
    await k.report('lab1', { ...optedIn(), update_outcome: outcome });
    await flush();
    expect(k.entries()).toEqual(['lab1 queued', 'lab1 delivered', 'lab1 rolled_back']);
    // The machine's words, quoted as its own.
    expect(k.journal.recent(1)[0]).toMatchObject({
      who: 'machine',
      detail: 'its agent reports rolled_back: "the new file did not report within a minute"',
    });
  });
});

describe("what machines' reports cause in the journal", () => {
  it('shares a budget of 100 entries a minute; past it they are counted and summed up', async () => {
    const k = kit();
    const names = Array.from({ length: 90 }, (_, i) => `m${i}`);
    for (const name of names) await k.report(name, optedIn());
    for (const name of names) await k.updates.request(BOARD_WHO, name);
    // Each hand-over and each outcome is caused by a report: 180 entries asked for.
    for (const name of names) await k.report(name, optedIn());
    const outcome = (i: number) => ({
      state: 'rolled_back',
      to_sha256: NEW,
      detail: `no ${i}`,
      at: new Date(k.clock.now() + i).toISOString(),
    });
    for (const [i, name] of names.entries())
      await k.report(name, { ...optedIn(), update_outcome: outcome(i) });
    await flush();
    const caused = () =>
      k.journal
        .recent(10_000)
        .filter((e) => e.op === 'update' && e.outcome !== 'queued' && e.target !== '*');
    // 90 hand-overs and the first 10 outcomes; the other 80 outcomes are counted.
    expect(caused()).toHaveLength(100);
    expect(caused().filter((e) => e.who === 'machine')).toHaveLength(10);
    k.clock.advance(60_000);
    await k.report('m0', { ...optedIn(), update_outcome: outcome(999) });
    await k.updates.request(BOARD_WHO, 'm0');
    await k.report('m0', optedIn());
    await flush();
    const summary = k.journal.recent(10_000).find((e) => e.outcome === 'counted');
    expect(summary).toMatchObject({ who: 'machine', op: 'update', target: '*' });
    expect(summary?.detail).toMatch(/^80 more update entries from 80 machine/);
  });
});

describe('updating all machines', () => {
  it('goes in batches of 10: the next when each has reported, or after 3 report intervals of silence', async () => {
    const k = kit();
    const names = Array.from({ length: 25 }, (_, i) => `lab${String(i).padStart(2, '0')}`);
    for (const name of names) await k.report(name, optedIn());
    for (const name of names) k.verify(name);
    await k.report('current', optedIn(NEW));
    const all = await k.updates.requestAll(BOARD_WHO);
    expect(all).toEqual({ status: 202, body: { machines: names } });
    expect((await k.updates.requestAll(BOARD_WHO)).status).toBe(409);
    const handed = async () => {
      const got: string[] = [];
      for (const name of names) {
        const a = await k.report(name, optedIn());
        if ((a.body as { update?: unknown }).update !== undefined) got.push(name);
      }
      return got;
    };
    expect(await handed()).toEqual(names.slice(0, 10));
    // Nine of the first ten report the new sum: the batch still waits for the tenth.
    for (const name of names.slice(0, 9)) await k.report(name, optedIn(NEW));
    expect(await handed()).toEqual([]);
    await k.report(names[9] as string, optedIn(NEW));
    await flush();
    expect(await handed()).toEqual(names.slice(10, 20));
    // The second batch is heard from as it is handed over; then silence: after 3 × 5 s (their
    // interval here) without a word from any of them, the third starts.
    const third = names.slice(20);
    const handedOf = async (list: string[]) => {
      const got: string[] = [];
      for (const name of list) {
        const a = await k.report(name, optedIn());
        if ((a.body as { update?: unknown }).update !== undefined) got.push(name);
      }
      return got;
    };
    k.clock.advance(15_000 - 1);
    k.updates.tick();
    await flush();
    expect(await handedOf(third)).toEqual([]);
    // One of the batch reports (still the old sum): heard, so it waits 15 s from now.
    await k.report('lab10', optedIn());
    k.clock.advance(15_000 - 1);
    k.updates.tick();
    await flush();
    expect(await handedOf(third)).toEqual([]);
    k.clock.advance(1);
    k.updates.tick();
    await flush();
    expect(await handedOf(third)).toEqual(third);
    // The third batch keeps reporting without the new sum: it gives way after 2 minutes at most.
    for (let s = 0; s < 12; s += 1) {
      k.clock.advance(10_000);
      for (const name of third) await k.report(name, optedIn());
      k.updates.tick();
      await flush();
    }
    expect(k.updates.running).toBe(false);
    for (const name of third) await k.report(name, optedIn(NEW));
    await flush();
    expect(k.entries().filter((e) => e.endsWith('updated'))).toHaveLength(15);
  });

  it('takes only the machines named, and none that is down', async () => {
    const k = kit();
    await k.report('lab1', optedIn());
    await k.report('lab2', optedIn());
    await k.report('lab3', optedIn());
    k.clock.advance(10 * 60_000);
    k.registry.markStale(60_000);
    k.verify('lab2');
    k.verify('lab3');
    const some = await k.updates.requestAll(BOARD_WHO, ['lab1', 'lab2']);
    expect(some).toEqual({ status: 202, body: { machines: ['lab2'] } });
  });
});
