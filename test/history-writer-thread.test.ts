import { describe, expect, it } from 'vitest';
import { openLibsqlHistory } from '../dist/board/store/sqlite/history-store.js';
import type { WriteBatch } from '../src/board/history/history-store.js';
import { rawSample } from '../src/board/history/tiers.js';
import { storeChangesContract } from '../src/board/store/history-contract-changes.case.js';
import { storeRowsContract } from '../src/board/store/history-contract-rows.case.js';
import { freshHistoryFiles, EVERY_METRIC as values } from './helpers/history-files.js';

/**
 * The libsql history store with its writer and its reads on threads of their own (built code:
 * dist/…/history-writer-thread.js and history-reader-thread.js); from source both run on the
 * calling thread and src/board/store/sqlite/history-store.test.ts covers that.
 */
const fresh = freshHistoryFiles('panoptes-writer-thread-');

const openStore = async () => openLibsqlHistory(fresh(), Date.now, true);
storeRowsContract('libsql, writer thread', openStore);
storeChangesContract('libsql, writer thread', openStore);

describe('the history writer thread', () => {
  const keep = { raw: 0, m5: 0, h1: 0 };
  const sweep = (t: number, count: number): WriteBatch => ({
    samples: Array.from({ length: count }, (_, i) => ({
      tier: 'raw' as const,
      name: `m${i}`,
      sample: rawSample(t, true, values),
    })),
    events: [],
    forget: [],
    cutoffs: keep,
  });

  it('writes on its thread: every number crosses, and a reopened file has it all', async () => {
    const path = fresh();
    const store = openLibsqlHistory(path, Date.now, true);
    await store.write(sweep(100, 3));
    await store.write({
      samples: [
        { tier: 'm5', name: 'm0', sample: { ...rawSample(300, false, values), n: 4, up: 0.25 } },
      ],
      events: [{ name: 'm1', at: 100_000, state: 'up', previous: null, reason: 'first' }],
      forget: ['m2'],
      cutoffs: keep,
    });
    expect(await store.has('m2')).toBe(false);
    await store.close();
    const again = openLibsqlHistory(path, Date.now, true);
    const [raw] = await again.samples('m0', 'raw', 0, 1000);
    expect(raw?.avg).toEqual(values);
    const [m5] = await again.samples('m0', 'm5', 0, 1000);
    expect(m5).toMatchObject({ t: 300, n: 4, up: 0.25 });
    expect(m5?.max.gpu_mem).toBe(0.75);
    expect(await again.events('m1', 10)).toEqual([
      { at: 100_000, state: 'up', previous: null, reason: 'first' },
    ]);
    expect(await again.has('m2')).toBe(false);
    await again.close();
  });

  it('starts at the first row: an empty history (none yet, or every machine forgotten) writes nothing', async () => {
    const path = fresh();
    const writerOf = (store: unknown) => (store as { writer: { running: boolean } }).writer;
    const store = openLibsqlHistory(path, Date.now, true);
    const nothing: WriteBatch = { samples: [], events: [], forget: [], cutoffs: keep };
    await store.write(nothing);
    await store.write(nothing);
    expect(writerOf(store).running).toBe(false);
    await store.write(sweep(100, 3));
    expect(writerOf(store).running).toBe(true);
    // Forgotten, their rows are dropped (few: in the same batch); the file is empty again.
    await store.write({ ...nothing, forget: ['m0', 'm1', 'm2'] });
    await store.close();
    const again = openLibsqlHistory(path, Date.now, true);
    await again.write(nothing);
    expect(writerOf(again).running).toBe(false);
    expect(await again.has('m0')).toBe(false);
    await again.close();
  });

  it('never shows a batch in part while the thread writes it', async () => {
    const store = openLibsqlHistory(fresh(), Date.now, true);
    await store.write(sweep(100, 1));
    const big: WriteBatch = {
      ...sweep(200, 1),
      samples: Array.from({ length: 5000 }, (_, i) => ({
        tier: 'raw' as const,
        name: 'm0',
        sample: rawSample(200 + i, true, values),
      })),
    };
    let settled = false;
    const writing = store.write(big).then(() => {
      settled = true;
    });
    const seen = new Set<number>();
    while (!settled) {
      seen.add((await store.samples('m0', 'raw', 0, 10_000)).length);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await writing;
    seen.add((await store.samples('m0', 'raw', 0, 10_000)).length);
    expect([...seen].every((n) => n === 1 || n === 5001)).toBe(true);
    expect(seen.has(5001)).toBe(true);
    await store.close();
  });

  it('fails the write under way when its thread dies, and the next write starts a new one', async () => {
    const store = openLibsqlHistory(fresh(), Date.now, true);
    await store.write(sweep(100, 2));
    const thread = (
      store as unknown as {
        writer: { worker: { postMessage(message: unknown, transfer?: unknown): void } };
      }
    ).writer;
    // The thread ends before the write it is sent (told to close, behind the store's back, just
    // ahead of it): a terminate() from outside could land inside a libsql call, which aborts the
    // whole process.
    const worker = thread.worker;
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (message, transfer) => {
      worker.postMessage = post;
      post({ type: 'close' });
      post(message, transfer);
    };
    const lost = store.write(sweep(110, 20_000));
    await expect(lost).rejects.toThrow(/history writer thread exited/);
    await store.write(sweep(120, 2));
    expect((await store.samples('m1', 'raw', 0, 1000)).map((s) => s.t)).toContain(120);
    await store.close();
  });
});
