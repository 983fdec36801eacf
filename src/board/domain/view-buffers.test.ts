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
    expect(buffers.counts()).toEqual({ lent: 1, spares: 0 });
    expect(buffers.take(100).buffer).not.toBe(view.buffer);
    b();
    expect(buffers.counts()).toEqual({ lent: 0, spares: 1 });
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
    expect(buffers.counts().spares).toBe(1);
    expect(buffers.take(50).buffer).toBe(large.buffer);
  });
});
