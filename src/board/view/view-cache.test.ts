import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { testBoard } from '../../../test/helpers/board-kit.js';
import { ManualClock } from '../../shared/clock.js';
import type { Report } from '../../shared/wire/report.js';
import { type Machine, newMachine } from '../domain/machine.js';
import { registrationWho } from '../domain/who.js';
import { keepOverview } from './machine-record.js';
import { ViewCache } from './view-cache.js';

const report = (mark: number) =>
  ({ name: 'lab1', location: 'http://lab1:8701', hostname: `mark-${mark}` }) as Report;
const marks = (bytes: Buffer) => [...bytes.toString().matchAll(/mark-(\d+)/g)].map((m) => m[1]);
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('ViewCache', () => {
  it('while GETs keep coming, refreshes a report in the background when the 250 ms are up', async () => {
    const t = testBoard();
    await t.board.report(registrationWho(''), report(1));
    const first = t.registry.view();
    expect(marks(first.bytes)).toEqual(['1']);
    await t.board.report(registrationWho(''), report(2));
    // Within the coalescing delay: the bytes before the report, at once.
    expect(t.registry.view().etag).toBe(first.etag);
    // The board's clock does not move: only the background refresh can make the new bytes.
    let after = t.registry.view();
    for (let i = 0; i < 50 && after.etag === first.etag; i += 1) {
      await settle();
      after = t.registry.view();
    }
    expect(marks(after.bytes)).toEqual(['2']);
    expect(after.etag).not.toBe(first.etag);
    expect(JSON.parse(after.bytes.toString()).machines).toHaveLength(1);
  });

  it('rebuilds at once for a GET after a quiet spell, and after a machine is added', async () => {
    const t = testBoard();
    await t.board.report(registrationWho(''), report(1));
    expect(marks(t.registry.view().bytes)).toEqual(['1']);
    t.clock.advance(10_000);
    await t.board.report(registrationWho(''), report(2));
    expect(marks(t.registry.view().bytes)).toEqual(['2']);
    await t.board.report(registrationWho(''), { ...report(3), name: 'lab2' } as Report);
    expect(marks(t.registry.view().bytes)).toEqual(['2', '3']);
    await settle();
  });

  it('never writes a view again while it is lent, and uses its memory again once given back', async () => {
    const t = testBoard();
    await t.board.report(registrationWho(''), report(1));
    const lent = t.registry.view();
    const copy = Buffer.from(lent.bytes);
    // Rebuilt at once each time (the clock moves past the coalescing delay), and the first view
    // still lent: none of them may be built in its memory.
    const seen = new Set<ArrayBufferLike>([lent.bytes.buffer]);
    for (let mark = 2; mark <= 5; mark += 1) {
      t.clock.advance(10_000);
      await t.board.report(registrationWho(''), report(mark));
      const next = t.registry.view();
      expect(marks(next.bytes)).toEqual([String(mark)]);
      expect(next.bytes.buffer).not.toBe(lent.bytes.buffer);
      seen.add(next.bytes.buffer);
      next.release();
    }
    expect(lent.bytes.equals(copy)).toBe(true);
    // Given back views are used again: far fewer buffers than views.
    expect(seen.size).toBeLessThan(5);
    lent.release();
    lent.release();
    t.clock.advance(10_000);
    await t.board.report(registrationWho(''), report(6));
    const reused = t.registry.view();
    expect(marks(reused.bytes)).toEqual(['6']);
    reused.release();
    await settle();
  });

  it('copies a record whole when its machine reports between two slices of a background refresh', async () => {
    const t = testBoard();
    const named = (i: number, mark: number) =>
      ({ ...report(mark), name: `lab${String(i).padStart(3, '0')}` }) as Report;
    for (let i = 0; i < 300; i += 1) await t.board.report(registrationWho(''), named(i, 1));
    const first = t.registry.view();
    // Every 64 records look like a slice's worth of work: the refresh yields between them.
    let now = performance.now();
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => (now += 5));
    try {
      await t.board.report(registrationWho(''), named(0, 2));
      // Past the coalescing delay the refresh runs; meanwhile lab000, whose record the first
      // slice copied, reports again and again, its overview longer or shorter each time.
      let mark = 2;
      let after = t.registry.view();
      for (const until = Date.now() + 5000; Date.now() < until && after.etag === first.etag; ) {
        await new Promise((resolve) => setImmediate(resolve));
        mark = mark === 2 ? 123456789 : 2;
        await t.board.report(registrationWho(''), named(0, mark));
        after = t.registry.view();
      }
      expect(after.etag).not.toBe(first.etag);
      const machines = JSON.parse(after.bytes.toString()).machines as { name: string }[];
      expect(machines).toHaveLength(300);
      expect(machines[0]?.name).toBe('lab000');
    } finally {
      clock.mockRestore();
    }
    await settle();
  });

  it('gives a view no one asked for up, memory and all, and rebuilds the same bytes and ETag', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const clock = new ManualClock();
    const cache = new ViewCache(clock, 50);
    const machines = new Map<string, Machine>();
    for (const name of ['lab1', 'lab2']) {
      const m = newMachine({ name, origin: 'announced', location: '', firstSeen: clock.now() });
      keepOverview(m, `{"hostname":"${name}"}`);
      machines.set(name, m);
    }
    const memory: WeakRef<ArrayBufferLike>[] = [];
    const first = (() => {
      const lease = cache.get(machines);
      memory.push(new WeakRef(lease.bytes.buffer));
      lease.release();
      return { text: lease.bytes.toString(), etag: lease.etag };
    })();
    // Asked for again within the idle time: the same view, in the same memory.
    await new Promise((resolve) => setTimeout(resolve, 30));
    (() => {
      const again = cache.get(machines);
      expect(again.bytes.buffer).toBe(memory[0]?.deref());
      again.release();
    })();
    // Not asked for past it: given up, and nothing here keeps its memory.
    await new Promise((resolve) => setTimeout(resolve, 120));
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(memory[0]?.deref()).toBeUndefined();
    // The next GET rebuilds it: nothing changed, so the same bytes under the same ETag.
    const rebuilt = cache.get(machines);
    expect(rebuilt.bytes.toString()).toBe(first.text);
    expect(rebuilt.etag).toBe(first.etag);
    rebuilt.release();
    // A change meanwhile, then idle again: a new ETag.
    await new Promise((resolve) => setTimeout(resolve, 120));
    keepOverview(machines.get('lab1') as Machine, '{"hostname":"changed"}');
    cache.invalidate(true);
    const changed = cache.get(machines);
    expect(changed.etag).not.toBe(first.etag);
    expect(changed.bytes.toString()).toContain('changed');
    changed.release();
  });
});
