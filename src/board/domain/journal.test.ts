import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import type { JournalEntry } from '../schemas.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { EventHub } from './events.js';
import { Journal } from './journal.js';
import { BOARD_WHO } from './who.js';

const entry = (outcome: string, detail = 'x') => ({
  who: BOARD_WHO,
  op: 'do',
  target: 'web1/job/start',
  outcome,
  status: 200,
  detail,
});

describe('Journal', () => {
  it('refusals and announcements fill at most half of it: what was done stays', async () => {
    const journal = new Journal(new ManualClock(), new EventHub(), new MemoryStore().journal, [], {
      capacity: 10,
    });
    await journal.record(entry('done', 'kept'));
    for (let i = 0; i < 50; i += 1) await journal.record(entry(i % 2 ? 'refused' : 'announced'));
    const all = journal.recent(100);
    expect(all).toHaveLength(10);
    expect(all.some((e) => e.detail === 'kept')).toBe(true);
    // Done entries push out the oldest entries as before.
    for (let i = 0; i < 10; i += 1) await journal.record(entry('done', `d${i}`));
    expect(journal.recent(100).some((e) => e.detail === 'kept')).toBe(false);
  });

  it('drops what the bound pushed out from its store too, in batches, and reloads the same', async () => {
    const store = new MemoryStore();
    const journal = new Journal(new ManualClock(), new EventHub(), store.journal, [], {
      capacity: 100,
    });
    for (let i = 0; i < 1000; i += 1) await journal.record(entry('done', `d${i}`));
    const stored = await store.journal.load();
    // At most one batch (500) of dropped entries is still in the store.
    expect(stored.length).toBeLessThanOrEqual(100 + 500);
    expect(stored.at(-1)?.detail).toBe('d999');
    const again = new Journal(new ManualClock(), new EventHub(), store.journal, stored, {
      capacity: 100,
    });
    expect(again.recent(100)).toEqual(journal.recent(100));
    // Ids go on from the last one, not from 1.
    expect((await again.record(entry('done'))).id).toBe(1001);
  });

  it('pages older than a key: each entry once, newest first (MCP cursors)', async () => {
    const journal = new Journal(new ManualClock(), new EventHub(), new MemoryStore().journal, []);
    for (let i = 0; i < 25; i += 1) await journal.record(entry('done', `d${i}`));
    const walked: string[] = [];
    let before: JournalEntry | undefined;
    for (;;) {
      const page = await journal.served(4, before);
      if (page.length === 0) break;
      walked.push(...page.map((e) => e.detail));
      before = page.at(-1);
    }
    expect(walked).toEqual(journal.recent(100).map((e) => e.detail));
    expect(walked).toHaveLength(25);
  });

  it('cuts what a client supplied: target to 200 characters, detail to 1,000', async () => {
    const journal = new Journal(new ManualClock(), new EventHub(), new MemoryStore().journal, []);
    const e = await journal.record({
      ...entry('refused', 'd'.repeat(5000)),
      target: 't'.repeat(500),
    });
    expect(e.target).toHaveLength(200);
    expect(e.target.endsWith('…')).toBe(true);
    expect(e.detail).toHaveLength(1000);
  });

  it('serves the shared store where there is one, and its own entries while the store is away', async () => {
    const store = new MemoryStore();
    const own = new Journal(new ManualClock(), new EventHub(), store.journal, []);
    await own.record(entry('done', 'here'));
    expect((await own.served(10)).map((e) => e.detail)).toEqual(['here']);
    // The same entries, now beside another board's.
    const loaded = await store.journal.load();
    const other = { ...(loaded[0] as JournalEntry), id: 900, detail: 'there' };
    let away: 'no' | 'known' | 'failing' = 'no';
    const shared = async (limit: number) => {
      if (away === 'failing') throw new Error('connection refused');
      return away === 'known' ? null : [other, ...loaded].slice(0, limit);
    };
    const journal = new Journal(new ManualClock(), new EventHub(), store.journal, loaded, {
      shared,
    });
    expect((await journal.served(10)).map((e) => e.detail)).toEqual(['there', 'here']);
    for (const how of ['known', 'failing'] as const) {
      away = how;
      expect((await journal.served(10)).map((e) => e.detail)).toEqual(['here']);
    }
  });
});
