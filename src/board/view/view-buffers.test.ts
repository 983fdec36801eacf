import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ViewBuffers } from './view-buffers.js';

describe('ViewBuffers', () => {
  it('uses the memory of a retired view again, for a view of the same size or smaller', () => {
    const buffers = new ViewBuffers();
    const first = buffers.take(1000);
    expect(first).toHaveLength(1000);
    buffers.retire(first);
    const second = buffers.take(900);
    expect(second).toHaveLength(900);
    expect(second.buffer).toBe(first.buffer);
    // Larger than the spare's room: new memory.
    buffers.retire(second);
    const larger = buffers.take(5000);
    expect(larger.buffer).not.toBe(first.buffer);
  });

  it('keeps a lent buffer out of use until every reader has given it back', () => {
    const buffers = new ViewBuffers();
    const view = buffers.take(100);
    const a = buffers.lend(view);
    const b = buffers.lend(view);
    buffers.retire(view);
    expect(buffers.take(100).buffer).not.toBe(view.buffer);
    a();
    a(); // a second call gives nothing back
    expect(buffers.state(view)).toEqual({ lent: true, spares: 0 });
    expect(buffers.take(100).buffer).not.toBe(view.buffer);
    b();
    expect(buffers.state(view)).toEqual({ lent: false, spares: 1 });
    expect(buffers.take(100).buffer).toBe(view.buffer);
  });

  it('never uses again a buffer whose reader did not give it back, nor the current one', () => {
    const buffers = new ViewBuffers();
    const current = buffers.take(100);
    buffers.lend(current)(); // read and given back, but still the current view: not retired
    expect(buffers.take(100).buffer).not.toBe(current.buffer);
    const cutOff = buffers.take(100);
    buffers.lend(cutOff); // never given back
    buffers.retire(cutOff);
    for (let i = 0; i < 3; i += 1) expect(buffers.take(100).buffer).not.toBe(cutOff.buffer);
  });

  it('keeps at most its number of spares, the largest', () => {
    const buffers = new ViewBuffers(1);
    const small = buffers.take(100);
    const large = buffers.take(10_000);
    buffers.retire(small);
    buffers.retire(large);
    expect(buffers.state(small).spares).toBe(1);
    expect(buffers.take(50).buffer).toBe(large.buffer);
  });

  it('gives up the spares past the largest once they have not been used for a while', async () => {
    const buffers = new ViewBuffers(2, 3, 60);
    const small = buffers.take(100);
    const large = buffers.take(200);
    buffers.retire(large);
    buffers.retire(small);
    expect(buffers.state(large).spares).toBe(2);
    // Used and given back within the time: kept.
    await new Promise((resolve) => setTimeout(resolve, 40));
    const again = buffers.take(100);
    expect(again.buffer).toBe(small.buffer); // the latest that fits
    buffers.retire(again);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(buffers.state(large).spares).toBe(2);
    // Idle past the time: only the largest is left.
    await expect.poll(() => buffers.state(large).spares, { interval: 10 }).toBe(1);
    expect(buffers.take(100).buffer).toBe(large.buffer);
  });

  it('keeps no spare once given up, not even one given back later, until the next take', () => {
    const buffers = new ViewBuffers();
    const spare = buffers.take(100);
    const read = buffers.take(100);
    const giveBack = buffers.lend(read); // a slow GET still writing the old view
    buffers.retire(spare);
    buffers.retire(read);
    expect(buffers.state(spare).spares).toBe(1);
    buffers.giveUp();
    expect(buffers.state(spare).spares).toBe(0);
    giveBack();
    expect(buffers.state(read).spares).toBe(0);
    // Taken again: spares are kept as before.
    const next = buffers.take(100);
    expect(next.buffer).not.toBe(spare.buffer);
    expect(next.buffer).not.toBe(read.buffer);
    buffers.retire(next);
    expect(buffers.state(next).spares).toBe(1);
  });

  it('gives a large view resizable memory, and a spare let go its pages back at once', () => {
    const buffers = new ViewBuffers(1);
    const large = buffers.take(10_000_000);
    const memory = large.buffer as ArrayBuffer & { resizable: boolean; maxByteLength: number };
    expect(memory.resizable).toBe(true);
    expect(memory.byteLength).toBeGreaterThanOrEqual(10_000_000);
    expect(memory.maxByteLength).toBeGreaterThanOrEqual(2 * 10_000_000);
    // A small one: a plain buffer with a little room.
    const small = buffers.take(100_000).buffer as ArrayBuffer & { resizable?: boolean };
    expect(small.resizable).toBe(false);
    expect(small.byteLength).toBeGreaterThanOrEqual(100_000);
    expect(small.byteLength).toBeLessThan(200_000);
    expect(buffers.count).toBe(2);
    // A spare serves a larger view in place, within what was reserved.
    buffers.retire(large);
    const larger = buffers.take(15_000_000);
    expect(larger.buffer).toBe(memory);
    expect(larger.length).toBe(15_000_000);
    // Let go (one spare at most is kept: a second, larger, takes its place): nothing left of
    // it, and it no longer counts as held, with no collection needed.
    const other = buffers.take(30_000_000);
    buffers.retire(larger);
    buffers.retire(other);
    expect(memory.byteLength).toBe(0);
    expect(buffers.count).toBe(2);
    buffers.giveUp();
    expect((other.buffer as ArrayBuffer).byteLength).toBe(0);
    expect(buffers.count).toBe(1);
  });

  it('does not keep alive the memory of a buffer whose reader never gave it back', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const buffers = new ViewBuffers();
    const refs: WeakRef<ArrayBufferLike>[] = [];
    // An aborted GET: lent, never given back, then no longer the view (and its response gone).
    (() => {
      const view = buffers.take(1_000_000);
      buffers.lend(view);
      buffers.retire(view);
      refs.push(new WeakRef(view.buffer));
    })();
    // A WeakRef's target lives at least to the end of the turn that made it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(refs[0]?.deref()).toBeUndefined();
  });

  it('makes a refresh wait for a spare while its limit of buffers is held, not longer than asked', async () => {
    const buffers = new ViewBuffers(2, 2);
    const old = buffers.take(100);
    const giveOldBack = buffers.lend(old); // a slow GET still writing it
    buffers.retire(old);
    const current = buffers.take(100);
    buffers.lend(current);
    expect(buffers.count).toBe(2);
    let freed = false;
    const waiting = buffers.whenFree(100, 60_000).then(() => {
      freed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(freed).toBe(false);
    giveOldBack(); // the old view becomes a spare: the refresh goes on, in its memory
    await waiting;
    expect(buffers.take(100).buffer).toBe(old.buffer);
    expect(buffers.count).toBe(2);
    // Nothing given back: the wait ends with its time-out, and new memory is taken.
    const started = Date.now();
    await buffers.whenFree(100, 30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    // Below the limit, or with a spare large enough: at once.
    await expect(new ViewBuffers(2, 3).whenFree(100, 60_000)).resolves.toBeUndefined();
  });

  it('counts a buffer left to the collector until it is collected', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const buffers = new ViewBuffers(0, 1);
    (() => {
      const view = buffers.take(1_000_000);
      buffers.retire(view); // no spare kept (maxSpares 0): dropped
    })();
    expect(buffers.count).toBe(1);
    let freed = false;
    const waiting = buffers.whenFree(10, 60_000).then(() => {
      freed = true;
    });
    for (let i = 0; i < 50 && !freed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      gc();
    }
    await waiting;
    expect(buffers.count).toBe(0);
  });
});
