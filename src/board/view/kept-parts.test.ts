import { describe, expect, it } from 'vitest';
import { metricsOf, type SessionMark } from '../domain/metrics.js';
import { keptSessions } from './kept-parts.js';

const bell = (text: string): SessionMark => ({ session: 's1', why: 'attention', text, at: 't1' });

describe('what a machine keeps of a new overview', () => {
  it('keeps the sessions it had when the new ones are equal by value, else takes the new', () => {
    const before = [bell('tests pass'), bell('review')];
    const same = [bell('tests pass'), bell('review')];
    expect(keptSessions(before, same)).toBe(before);
    const changed = [bell('tests pass'), bell('review, please')];
    expect(keptSessions(before, changed)).toBe(changed);
    const longer = [...same, bell('more')];
    expect(keptSessions(before, longer)).toBe(longer);
    expect(keptSessions(before, [{ ...bell('tests pass'), at: 't2' }, bell('review')])).not.toBe(
      before,
    );
  });

  it('keeps the values right when new sessions take the previous ones’ equal strings', () => {
    // Strings made at run time, as a parsed body's are: equal by value, not the same string.
    const text = (t: string) => [...t].join('');
    const before = [bell(text('tests pass')), bell(text('review'))];
    const rung = [{ ...bell(text('tests pass')), at: 't2' }, bell(text('review, please'))];
    const kept = keptSessions(before, rung);
    expect(kept).toBe(rung);
    expect(kept).toEqual([
      { session: 's1', why: 'attention', text: 'tests pass', at: 't2' },
      { session: 's1', why: 'attention', text: 'review, please', at: 't1' },
    ]);
    // (Whether the strings are the previous ones is not observable from JS: a heap snapshot
    // counts them.) The previous list is unchanged.
    expect(before.map((s) => s.at)).toEqual(['t1', 't1']);
  });

  it('shares one empty GPU list between machines without GPUs, and it cannot be changed', () => {
    const a = metricsOf({}, null);
    const b = metricsOf({ gpus: [] }, null);
    expect(a.gpus).toBe(b.gpus);
    expect(Object.isFrozen(a.gpus)).toBe(true);
  });
});
