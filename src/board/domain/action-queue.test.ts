import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { ActionQueue } from './action-queue.js';

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

  it('refuses more than the per-machine limit', async () => {
    const q = new ActionQueue(new ManualClock(), new MemoryStore().queue, [], 2);
    expect(await q.add('m', 'a', 'start')).not.toBeNull();
    expect(await q.add('m', 'a', 'stop')).not.toBeNull();
    expect(await q.add('m', 'a', 'start')).toBeNull();
    expect(await q.add('other', 'a', 'start')).not.toBeNull();
  });
});
