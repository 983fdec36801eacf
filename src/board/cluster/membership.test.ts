import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory/state-store.js';
import { alive, Membership } from './membership.js';

/** Boards a and b on one store, read against one clock that the test moves (`clock.now`). */
function twoBoards(ids: [string, string], failoverAfterMs: number, machines = 0) {
  const store = new MemoryStore();
  const clock = { now: 0 };
  const member = (id: string) =>
    new Membership(
      store.boards,
      () => ({ id, machines, failoverAfterMs }),
      () => clock.now,
    );
  return { clock, a: member(ids[0]), b: member(ids[1]) };
}

describe('Membership', () => {
  it('a board is alive while its heartbeat is younger than failover_after', () => {
    const row = { id: 'a', started_at: 0, seen_at: 10_000, machines: 1 };
    expect(alive(row, 19_999, 10_000)).toBe(true);
    expect(alive(row, 20_000, 10_000)).toBe(false);
  });

  it('lists every board by id, marks the silent one dead, and always itself alive', async () => {
    const { clock, a, b } = twoBoards(['a:8700', 'b:8700'], 10_000, 2);
    clock.now = 100_000;
    expect(a.boards().map((x) => x.id)).toEqual(['a:8700']);
    await b.beat();
    await a.beat();
    expect(a.boards().map((x) => [x.id, x.alive])).toEqual([
      ['a:8700', true],
      ['b:8700', true],
    ]);
    // b stops beating; a goes on.
    clock.now += 10_000;
    await a.beat();
    expect(a.boards()).toEqual([
      { id: 'a:8700', alive: true, seen_at: new Date(clock.now).toISOString(), machines: 2 },
      { id: 'b:8700', alive: false, seen_at: new Date(100_000).toISOString(), machines: 2 },
    ]);
    // b, cut off from the store, still lists itself alive (from memory).
    expect(b.boards().find((x) => x.id === 'b:8700')?.alive).toBe(true);
  });

  it('cut off from the store for failover_after, a board keeps the boards it last saw alive', async () => {
    const { clock, a, b } = twoBoards(['a', 'b'], 10_000);
    await b.beat();
    await a.beat();
    expect(a.liveIds()).toEqual(['a', 'b']);
    // a can no longer read or write (no beat); 30 s on it is cut off, and still sees b.
    clock.now = 30_000;
    expect(a.cutOff()).toBe(true);
    expect(a.liveIds()).toEqual(['a', 'b']);
    // b, which can, sees a dead.
    await b.beat();
    expect(b.cutOff()).toBe(false);
    expect(b.liveIds()).toEqual(['b']);
  });

  it('a board whose own read is late does not count the others dead for it', async () => {
    const { clock, a, b } = twoBoards(['a', 'b'], 2000);
    clock.now = 100;
    await b.beat();
    clock.now = 1000;
    await a.beat();
    // a's next read is 700 ms late (its store slow): b's heartbeat is 2.4 s old by the clock,
    // but a has not read since, and b may well have beaten at 1100 and 2100.
    clock.now = 2500;
    expect(a.cutOff()).toBe(false);
    expect(a.liveIds()).toEqual(['a', 'b']);
    expect(a.boards().find((x) => x.id === 'b')?.alive).toBe(true);
    // Once a reads again and b's heartbeat is still the one of 100: dead.
    await a.beat();
    expect(a.liveIds()).toEqual(['a']);
    expect(a.boards().find((x) => x.id === 'b')?.alive).toBe(false);
  });
});
