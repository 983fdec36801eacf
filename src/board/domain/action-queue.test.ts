import { describe, expect, it } from 'vitest';
import { MemoryLog } from '../../../test/helpers/board-kit.js';
import { ManualClock } from '../../shared/clock.js';
import { ActionQueue, type QueueOp } from './action-queue.js';

describe('ActionQueue', () => {
  it('is rebuilt exactly from its log: adds, deliveries and removals', async () => {
    const clock = new ManualClock();
    const log = new MemoryLog<QueueOp>();
    const q = new ActionQueue(clock, log, []);
    const a = await q.add('lab3', 'job', 'start');
    const b = await q.add('lab3', 'job', 'stop');
    const c = await q.add('lab4', 'x', 'start');
    if (a === null || b === null || c === null) throw new Error('not queued');
    await q.markDelivered(a.id);
    await q.remove(b.id);
    const again = new ActionQueue(clock, log, log.records);
    expect(again.forMachine('lab3')).toEqual([{ ...a, delivered: true }]);
    expect(again.count('lab4')).toBe(1);
    expect(again.get(b.id)).toBeUndefined();
    // A delivery is noted once; a second hand-over is not "new".
    expect(await again.markDelivered(a.id)).toBe(false);
  });

  it('refuses more than the per-machine limit', async () => {
    const q = new ActionQueue(new ManualClock(), new MemoryLog<QueueOp>(), [], 2);
    expect(await q.add('m', 'a', 'start')).not.toBeNull();
    expect(await q.add('m', 'a', 'stop')).not.toBeNull();
    expect(await q.add('m', 'a', 'start')).toBeNull();
    expect(await q.add('other', 'a', 'start')).not.toBeNull();
  });

  it('compacts its log to the live actions when it is mostly dead, losing nothing', async () => {
    const clock = new ManualClock();
    const log = new MemoryLog<QueueOp>();
    const q = new ActionQueue(clock, log, [], 5000);
    const keep = await q.add('m', 'keep', 'start');
    if (keep === null) throw new Error('not queued');
    await q.markDelivered(keep.id);
    for (let i = 0; i < 1200; i += 1) {
      const x = await q.add('m', `w${i}`, 'start');
      if (x !== null) await q.remove(x.id);
    }
    expect(log.lineCount).toBeLessThan(1200);
    const again = new ActionQueue(clock, log, log.records);
    expect(again.forMachine('m')).toEqual([{ ...keep, delivered: true }]);
  });
});
