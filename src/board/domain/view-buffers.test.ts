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
});
