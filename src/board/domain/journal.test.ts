import { describe, expect, it } from 'vitest';
import { MemoryLog } from '../../../test/helpers/board-kit.js';
import { ManualClock } from '../../shared/clock.js';
import type { JournalEntry } from '../schemas.js';
import { EventHub } from './events.js';
import { Journal } from './journal.js';

const entry = (outcome: string, detail = 'x') => ({
  who: 'board' as const,
  op: 'do',
  target: 'web1/job/start',
  outcome,
  status: 200,
  detail,
});

describe('Journal', () => {
  it('refusals and announcements fill at most half of it: what was done stays', async () => {
    const journal = new Journal(
      new ManualClock(),
      new EventHub(),
      new MemoryLog<JournalEntry>(),
      [],
      10,
    );
    await journal.record(entry('done', 'kept'));
    for (let i = 0; i < 50; i += 1) await journal.record(entry(i % 2 ? 'refused' : 'announced'));
    const all = journal.recent(100);
    expect(all).toHaveLength(10);
    expect(all.some((e) => e.detail === 'kept')).toBe(true);
    // Done entries push out the oldest entries as before.
    for (let i = 0; i < 10; i += 1) await journal.record(entry('done', `d${i}`));
    expect(journal.recent(100).some((e) => e.detail === 'kept')).toBe(false);
  });

  it('cuts what a client supplied: target to 200 characters, detail to 1,000', async () => {
    const journal = new Journal(
      new ManualClock(),
      new EventHub(),
      new MemoryLog<JournalEntry>(),
      [],
    );
    const e = await journal.record({
      ...entry('refused', 'd'.repeat(5000)),
      target: 't'.repeat(500),
    });
    expect(e.target).toHaveLength(200);
    expect(e.target.endsWith('…')).toBe(true);
    expect(e.detail).toHaveLength(1000);
  });
});
