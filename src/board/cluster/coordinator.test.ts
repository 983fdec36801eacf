import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { EventHub } from '../domain/events.js';
import { Registry } from '../domain/registry.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { machineMemory } from '../view/machine-memory.js';
import { Coordinator } from './coordinator.js';
import { ForgetNotices } from './forget-notices.js';
import { Membership } from './membership.js';
import { Ownership } from './ownership.js';

const machines = Array.from({ length: 20 }, (_, i) => ({
  name: `m${i}`,
  url: `http://127.0.0.1:1/m${i}`,
  location: `http://127.0.0.1:1/m${i}`,
  key: 'k',
}));

/** Two boards over one in-memory store, on one manual clock. */
async function pair() {
  const store = new MemoryStore();
  const forgotten: { board: string; name: string; revoked: boolean }[] = [];
  const clock = new ManualClock(1_000_000);
  const make = (id: string) => {
    const registry = new Registry(clock, new EventHub(), machines, 100, machineMemory(clock), {
      boardId: id,
    });
    const membership = new Membership(
      store.boards,
      () => ({ id, machines: machines.length, failoverAfterMs: 10_000 }),
      () => clock.now(),
    );
    const self = () => id;
    const ownership = new Ownership(membership, self);
    const notices = new ForgetNotices({ self, records: store.records, ownership });
    const coordinator = new Coordinator({
      self,
      membership,
      ownership,
      registry,
      records: store.records,
      syncShared: async () => undefined,
      keyProofAt: () => null,
      claims: store.claims,
      resend: () => undefined,
      forget: (name, revoked) => forgotten.push({ board: id, name, revoked }),
      revoked: (name) => name === 'revoked1',
      keyProofSeen: () => undefined,
      onError: (error) => {
        throw error;
      },
    });
    return { registry, membership, ownership, notices, coordinator };
  };
  const a = make('a');
  const b = make('b');
  await a.membership.beat();
  await b.membership.beat();
  await a.membership.beat();
  return { a, b, clock, forgotten };
}

type Side = Awaited<ReturnType<typeof pair>>['a'];

/** Closes one board's change set, as its sweep does. */
function closeChangeSet(side: Side, clock: ManualClock) {
  const { registry } = side;
  return registry.changes.close(
    clock.now(),
    1,
    () => registry.all(),
    registry.size(),
    () => {},
  );
}

/** `from` publishes what changed since its last change set; `to` reads it. */
async function publishedTo(from: Side, to: Side, clock: ManualClock): Promise<void> {
  from.coordinator.onChangeSet(closeChangeSet(from, clock));
  await from.coordinator.settled();
  await to.coordinator.pull();
}

describe('Coordinator', () => {
  it('splits the machines between the live boards, each machine to one', async () => {
    const { a, b } = await pair();
    const ownedByA = machines.filter((m) => a.ownership.owns(m.name)).length;
    const ownedByB = machines.filter((m) => b.ownership.owns(m.name)).length;
    expect(ownedByA + ownedByB).toBe(machines.length);
    for (const m of machines) expect(a.ownership.owns(m.name)).not.toBe(b.ownership.owns(m.name));
  });

  it('what one board polled shows on the other, with the board that polled it', async () => {
    const { a, b, clock } = await pair();
    for (const m of machines.filter((x) => a.ownership.owns(x.name))) {
      const machine = a.registry.get(m.name);
      if (machine !== undefined) a.registry.observe(machine, { ok: true, overview: { cpus: 2 } });
    }
    await publishedTo(a, b, clock);
    for (const m of machines) {
      const onB = b.registry.get(m.name);
      if (a.ownership.owns(m.name)) {
        expect(onB?.state).toBe('up');
        expect(onB?.board).toBe('a');
      } else expect(onB?.board).toBeNull();
    }
    // b records and notifies only for what it owns.
    const view = b.ownership.view(closeChangeSet(b, clock));
    expect(view.transitions.every((t) => b.ownership.owns(t.name))).toBe(true);
    expect([...view.machines()].every((m) => b.ownership.owns(m.name))).toBe(true);
  });

  it('what a machine says of its agent travels with its record, without parsing the overview', async () => {
    const { a, b, clock } = await pair();
    const found = a.registry.announce('upd1', 'http://127.0.0.1:1/upd1');
    if ('refused' in found) throw new Error(found.refused);
    const self = { updates: 'on', agent_file: 'panoptes-agent.mjs', agent_sha256: 'c'.repeat(64) };
    a.registry.observe(found.machine, { ok: true, overview: { version: '0.2.0', ...self } });
    await publishedTo(a, b, clock);
    expect(b.registry.get('upd1')?.agent).toEqual({
      version: '0.2.0',
      sha256: 'c'.repeat(64),
      file: 'panoptes-agent.mjs',
      updates: 'on',
      outcome: null,
    });
  });

  it('a machine forgotten on one board is forgotten by the other, revoked if its key was', async () => {
    const { a, b, forgotten } = await pair();
    await a.notices.publish('lab3');
    await a.notices.publish('lab5', true);
    await b.coordinator.pull();
    expect(forgotten).toEqual([
      { board: 'b', name: 'lab3', revoked: false },
      { board: 'b', name: 'lab5', revoked: true },
    ]);
  });

  it('a machine announced to one board is not listed by another that revoked its key', async () => {
    const { a, b, clock } = await pair();
    for (const name of ['lab9', 'revoked1']) {
      const found = a.registry.announce(name, `http://127.0.0.1:1/${name}`);
      if ('refused' in found) throw new Error(found.refused);
      a.registry.observe(found.machine, { ok: true, overview: { cpus: 2 } });
    }
    await publishedTo(a, b, clock);
    expect(b.registry.get('lab9')?.state).toBe('up');
    expect(b.registry.get('revoked1')).toBeUndefined();
  });

  it("a machine's container alerts travel with its record: every board shows the same", async () => {
    const { a, b, clock } = await pair();
    const found = a.registry.announce('box1', 'http://127.0.0.1:1/box1');
    if ('refused' in found) throw new Error(found.refused);
    const run = (state: string) => ({
      containers: [{ name: 'web', state, health: null }],
      smart: [{ device: '/dev/sda', passed: state === 'running' }],
    });
    a.registry.observe(found.machine, { ok: true, overview: run('running') });
    clock.advance(1000);
    a.registry.observe(found.machine, { ok: true, overview: run('exited') });
    // b never saw web running: alone, it would hold no alert; it takes a's.
    await publishedTo(a, b, clock);
    const onB = b.registry.get('box1');
    expect(onB?.containerAlerts.map((x) => `${x.name}:${x.problem}`)).toEqual(['web:stopped']);
    expect(onB?.failingDisks.map((d) => d.device)).toEqual(['/dev/sda']);
    const record = JSON.parse(b.registry.memory.recordBytes(onB as never).toString('utf8'));
    expect(record.container_alerts).toEqual([{ name: 'web', problem: 'stopped' }]);
    // b's rule engine hears of the episode and of its end, as a's does.
    let set = closeChangeSet(b, clock);
    expect(set.containers.map((c) => `${c.container} ${c.problem}`)).toEqual(['web stopped']);
    expect(set.diskHealth.map((d) => `${d.device} ${d.failing}`)).toEqual(['/dev/sda true']);
    clock.advance(1000);
    a.registry.observe(found.machine, { ok: true, overview: run('running') });
    await publishedTo(a, b, clock);
    expect(onB?.containerAlerts).toEqual([]);
    set = closeChangeSet(b, clock);
    expect(
      set.containers.map((c) => `${c.container} ${c.problem ?? 'ok'} ${c.gone === true}`),
    ).toEqual(['web ok false']);
    expect(set.diskHealth.map((d) => `${d.device} ${d.failing}`)).toEqual(['/dev/sda false']);
  });

  it('cut off from the store, a board notifies nothing', async () => {
    const { a, clock } = await pair();
    clock.advance(10_000);
    closeChangeSet(a, clock);
    for (const m of machines) expect(a.ownership.notifies(m.name)).toBe(false);
  });
});
