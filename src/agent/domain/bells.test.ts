import { describe, expect, it } from 'vitest';
import { Bells } from './bells.js';
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
});
