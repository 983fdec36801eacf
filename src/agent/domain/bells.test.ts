import { describe, expect, it } from 'vitest';
import { type BellStore, Bells } from './bells.js';
import { ManualClock } from './manual-clock.js';

describe('Bells', () => {
  it('keeps the latest bell of each session, most recent first', async () => {
    const clock = new ManualClock();
    const bells = new Bells(clock);
    bells.ring({ session: 'a', why: 'attention', text: 'first' });
    await clock.advance(1000);
    bells.ring({ session: 'b', why: 'finished', text: 'done' });
    await clock.advance(1000);
    bells.ring({ session: 'a', why: 'error', text: 'second' });
    expect(bells.sessions()).toEqual([
      { session: 'a', why: 'error', text: 'second', at: new Date(clock.now()).toISOString() },
      {
        session: 'b',
        why: 'finished',
        text: 'done',
        at: new Date(clock.now() - 1000).toISOString(),
      },
    ]);
  });

  it('keeps at most the limit of sessions, dropping the one that rang least recently', () => {
    const bells = new Bells(new ManualClock(), 200);
    for (let i = 0; i < 250; i += 1) bells.ring({ session: `s${i}`, why: 'finished', text: '' });
    // s50 rings again and so survives the next eviction; s51 is now the oldest.
    bells.ring({ session: 's50', why: 'attention', text: '' });
    bells.ring({ session: 'new', why: 'finished', text: '' });
    const names = bells.sessions().map((s) => s.session);
    expect(names).toHaveLength(200);
    expect(names[0]).toBe('new');
    expect(names[1]).toBe('s50');
    expect(names).not.toContain('s51');
    expect(names).toContain('s52');
    expect(names.at(-1)).toBe('s52');
  });

  it('with a store: kept() resolves once every bell rung so far is saved, rings coalesced', async () => {
    const saved: string[][] = [];
    let release: () => void = () => undefined;
    const store: BellStore = {
      save: (sessions) =>
        new Promise<void>((resolve) => {
          saved.push(sessions.map((s) => s.session));
          release = resolve;
        }),
    };
    const bells = new Bells(new ManualClock(), 200, store, [
      { session: 'old', why: 'attention', text: 'kept', at: '2026-01-01T00:00:00.000Z' },
    ]);
    expect(bells.sessions().map((s) => s.session)).toEqual(['old']);
    bells.ring({ session: 'a', why: 'attention', text: '' });
    const first = bells.kept();
    bells.ring({ session: 'b', why: 'error', text: '' });
    bells.ring({ session: 'c', why: 'finished', text: '' });
    const second = bells.kept();
    await Promise.resolve();
    release();
    await new Promise((r) => setTimeout(r, 0));
    release();
    await Promise.all([first, second]);
    // One save under way, then one for both rings that came meanwhile.
    expect(saved).toEqual([
      ['old', 'a'],
      ['old', 'a', 'b', 'c'],
    ]);
  });

  it('a save that fails is reported; the bells stay in memory', async () => {
    const errors: unknown[] = [];
    const store: BellStore = { save: async () => Promise.reject(new Error('EACCES')) };
    const bells = new Bells(new ManualClock(), 200, store, [], (e) => errors.push(e));
    bells.ring({ session: 'a', why: 'attention', text: '' });
    await bells.kept();
    expect(errors).toHaveLength(1);
    expect(bells.sessions().map((s) => s.session)).toEqual(['a']);
  });
});
