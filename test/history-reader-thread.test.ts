import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openLibsqlHistory } from '../dist/board/store/sqlite/history-store.js';
import { errorAnswer } from '../dist/shared/http/http-app.js';
import type { WriteBatch } from '../src/board/history/history-store.js';
import { rawSample } from '../src/board/history/tiers.js';
import { freshHistoryFiles, EVERY_METRIC as values } from './helpers/history-files.js';

/**
 * The libsql history store's reads on a thread of their own (built code:
 * dist/…/history-reader-thread.js; the store contract runs through it in
 * history-writer-thread.test.ts). From source the reads run on the calling thread.
 */
const fresh = freshHistoryFiles('panoptes-reader-thread-');

interface Thread {
  running: boolean;
  worker: { postMessage(message: unknown): void } | null;
  pending: Map<number, unknown>;
}
const threadOf = (store: unknown) => (store as { readerThread: Thread }).readerThread;

const sweeps = (from: number, count: number): WriteBatch => ({
  samples: Array.from({ length: count }, (_, i) => ({
    tier: 'raw' as const,
    name: 'm0',
    sample: rawSample(from + i * 5, i % 4 !== 0, { ...values, cpu: (i % 10) / 10 }),
  })),
  events: [{ name: 'm0', at: from * 1000, state: 'up', previous: null, reason: 'first' }],
  forget: [],
  cutoffs: { raw: 0, m5: 0, h1: 0 },
});

describe('the history reader thread', () => {
  it('starts at the first read, folds as the board thread does, and ends when idle', async () => {
    const path = fresh();
    const store = openLibsqlHistory(path, Date.now, true, { idleMs: 100 });
    await store.write(sweeps(1000, 2000));
    const thread = threadOf(store);
    expect(thread.running).toBe(false);
    const folded = await store.samples('m0', 'raw', 1000, 11_000, 100);
    expect(thread.running).toBe(true);
    const events = await store.events('m0', 5);
    await store.close();
    // The same file read on the calling thread: the same answer.
    const local = openLibsqlHistory(path, Date.now, false);
    expect(folded).toEqual(await local.samples('m0', 'raw', 1000, 11_000, 100));
    expect(folded).toHaveLength(100);
    expect(folded[0]).toMatchObject({ t: 1000, n: 20, up: 0.75 });
    expect(events).toEqual([{ at: 1_000_000, state: 'up', previous: null, reason: 'first' }]);
    await local.close();

    const again = openLibsqlHistory(path, Date.now, true, { idleMs: 100 });
    await again.samples('m0', 'raw', 1000, 2000, 100);
    const started = Date.now();
    while (threadOf(again).running && Date.now() - started < 5000)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(threadOf(again).running).toBe(false);
    // The next read starts a new thread.
    expect(await again.samples('m0', 'raw', 1000, 2000, 100)).toHaveLength(10);
    expect(threadOf(again).running).toBe(true);
    await again.close();
    expect(threadOf(again).running).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    'reads at a lower priority than the board: its thread alone is niced',
    async () => {
      const nice = (tid: string) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      };
      const niced = () => readdirSync('/proc/self/task').filter((tid) => nice(tid) >= 10);
      const self = readlinkSync('/proc/thread-self').split('/').pop() ?? '';
      const before = niced();
      const own = nice(self);
      const store = openLibsqlHistory(fresh(), Date.now, true);
      await store.write(sweeps(1000, 100));
      await store.samples('m0', 'raw', 1000, 1500, 50);
      const during = niced().filter((tid) => !before.includes(tid));
      expect(during).toHaveLength(1);
      expect(nice(self)).toBe(own);
      await store.close();
    },
  );

  it('fails the reads under way with a 503 when its thread dies, and the next read starts a new one', async () => {
    const store = openLibsqlHistory(fresh(), Date.now, true);
    await store.write(sweeps(1000, 100));
    await store.samples('m0', 'raw', 1000, 1500, 50);
    const thread = threadOf(store);
    // The thread ends before the read it was sent (told to close behind the store's back): a
    // terminate() from outside could land inside a libsql call, which aborts the whole process.
    thread.worker?.postMessage({ type: 'close' });
    const lost = store.samples('m0', 'raw', 1000, 1500, 50);
    const error = await lost.then(
      () => null,
      (e: unknown) => e,
    );
    const answer = errorAnswer(error, 1024);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(String((answer.body as { detail: string }).detail)).toMatch(/reader thread exited/);
    expect(await store.samples('m0', 'raw', 1000, 1500, 50)).toHaveLength(10);
    await store.close();
  });

  it('refuses reads past its bound with a 503, and answers those it took', async () => {
    const store = openLibsqlHistory(fresh(), Date.now, true, { readsMax: 3 });
    await store.write(sweeps(1000, 100));
    const reads = Array.from({ length: 8 }, () => store.samples('m0', 'raw', 1000, 1500, 50));
    expect(threadOf(store).pending.size).toBe(3);
    const settled = await Promise.allSettled(reads);
    const ok = settled.filter((s) => s.status === 'fulfilled');
    const refused = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
    expect(ok).toHaveLength(3);
    expect(refused).toHaveLength(5);
    for (const e of refused) expect(errorAnswer(e, 1024).status).toBe(503);
    await store.close();
  });

  it('close answers the reads under way, then ends the thread', async () => {
    const store = openLibsqlHistory(fresh(), Date.now, true);
    await store.write(sweeps(1000, 100));
    const read = store.samples('m0', 'raw', 1000, 1500, 50);
    await store.close();
    expect(await read).toHaveLength(10);
    expect(threadOf(store).running).toBe(false);
    await expect(store.samples('m0', 'raw', 1000, 1500, 50)).rejects.toThrow(/closed/);
  });
});
