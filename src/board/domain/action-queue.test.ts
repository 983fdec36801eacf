import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { ActionQueue, type QueuedAction, type QueueStore } from './action-queue.js';

/** A store whose writes wait until `release` is called (a slow or busy database). */
function heldStore() {
  const inner = new MemoryStore().queue;
  const held: (() => void)[] = [];
  const hold = <T>(write: () => Promise<T>) =>
    new Promise<void>((resolve) => held.push(resolve)).then(write);
  const store: QueueStore = {
    add: (a) => hold(() => inner.add(a)),
    markDelivered: (id) => inner.markDelivered(id),
    remove: (id) => hold(() => inner.remove(id)),
  };
  const release = () => {
    for (const go of held.splice(0)) go();
  };
  return { store, inner, release };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ActionQueue', () => {
  it('is rebuilt exactly from its store: adds, deliveries and removals', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore();
    const q = new ActionQueue(clock, store.queue, []);
    const a = await q.add('lab3', 'job', 'start');
    const b = await q.add('lab3', 'job', 'stop');
    const c = await q.add('lab4', 'x', 'start');
    if (a === null || b === null || c === null) throw new Error('not queued');
    await q.markDelivered(a.id);
    await q.remove(b.id);
    const again = new ActionQueue(clock, store.queue, await store.queue.load());
    expect(again.forMachine('lab3')).toEqual([{ ...a, delivered: true }]);
    expect(again.count('lab4')).toBe(1);
    expect(again.get(b.id)).toBeUndefined();
    // A delivery is noted once; a second hand-over is not "new".
    expect(await again.markDelivered(a.id)).toBe(false);
  });

  it('hands over nothing that is not yet on disk, and counts it against the limit', async () => {
    const { store, release } = heldStore();
    const q = new ActionQueue(new ManualClock(), store, [], 2);
    const first = q.add('lab3', 'job', 'start');
    const second = q.add('lab3', 'job', 'stop');
    await tick();
    // Both writes under way: neither listed, and no room for a third.
    expect(q.forMachine('lab3')).toEqual([]);
    expect(await q.add('lab3', 'job', 'start')).toBeNull();
    release();
    const done = await Promise.all([first, second]);
    expect(q.forMachine('lab3').map((a) => a.id)).toEqual(done.map((a) => a?.id));
  });

  it('a read of the store keeps what was queued and taken out here while it read', async () => {
    const { store, inner, release } = heldStore();
    const q = new ActionQueue(new ManualClock(), store, [], 10);
    const adding = q.add('lab3', 'job', 'start');
    await tick();
    release();
    const old = (await adding) as QueuedAction;
    // The read starts; meanwhile one action is queued here and the old one taken out.
    let finishRead: (rows: QueuedAction[]) => void = () => {};
    const staleRows = await inner.load();
    const syncing = q.sync(() => new Promise((resolve) => (finishRead = resolve)));
    const added = q.add('lab3', 'job', 'stop');
    const removing = q.remove(old.id);
    await tick();
    release();
    const fresh = (await added) as QueuedAction;
    expect(await removing).toEqual(old);
    // The read answers with what the store held when it began: the old action, not the new.
    finishRead(staleRows);
    await syncing;
    expect(q.forMachine('lab3').map((a) => a.id)).toEqual([fresh.id]);
    // The next read is the store's word again.
    await q.sync(() => inner.load());
    expect(q.forMachine('lab3').map((a) => a.id)).toEqual([fresh.id]);
  });

  it('refuses more than the per-machine limit', async () => {
    const q = new ActionQueue(new ManualClock(), new MemoryStore().queue, [], 2);
    expect(await q.add('m', 'a', 'start')).not.toBeNull();
    expect(await q.add('m', 'a', 'stop')).not.toBeNull();
    expect(await q.add('m', 'a', 'start')).toBeNull();
    expect(await q.add('other', 'a', 'start')).not.toBeNull();
  });
});
