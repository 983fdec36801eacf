import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { EventHub } from './events.js';
import { Journal } from './journal.js';
import { actorFilter, servedWhere } from './journal-filter.js';
import { BOARD_WHO } from './who.js';

const tokenWho = (name: string) => ({
  word: 'board' as const,
  actor: { kind: 'token' as const, name },
});

describe('the journal filtered by actor', () => {
  it('reads `kind:name` and `kind`; anything else names the kinds', () => {
    const deploy = actorFilter('token:deploy');
    if (typeof deploy === 'string') throw new Error(deploy);
    expect(deploy({ kind: 'token', name: 'deploy' })).toBe(true);
    expect(deploy({ kind: 'mcp', name: 'deploy' })).toBe(false);
    expect(deploy({ kind: 'token', name: 'deploy2' })).toBe(false);
    const person = actorFilter('person:ada@example.com');
    if (typeof person === 'string') throw new Error(person);
    expect(person({ kind: 'person', name: 'ada@example.com' })).toBe(true);
    const mcp = actorFilter('mcp');
    if (typeof mcp === 'string') throw new Error(mcp);
    expect(mcp({ kind: 'mcp', name: 'anything' })).toBe(true);
    for (const bad of ['', 'root:me', 'tokens:x', ':x']) {
      expect(actorFilter(bad)).toMatch(
        /^actor: .* one of person, token, board_token, machine, mcp, anonymous$/,
      );
    }
  });

  it('fills its page from entries far apart, across the pages it reads, and goes on before a cursor', async () => {
    const journal = new Journal(new ManualClock(), new EventHub(), new MemoryStore().journal, []);
    for (let i = 0; i < 1500; i += 1) {
      const who = i % 100 === 0 ? tokenWho('deploy') : BOARD_WHO;
      await journal.record({
        who,
        op: 'do',
        target: 'web1/x/start',
        outcome: 'done',
        status: 200,
        detail: `${i}`,
      });
    }
    const keep = (e: { actor: { kind: string } }) => e.actor.kind === 'token';
    const first = await servedWhere(journal, 10, keep);
    expect(first.map((e) => e.detail)).toEqual([
      '1400',
      '1300',
      '1200',
      '1100',
      '1000',
      '900',
      '800',
      '700',
      '600',
      '500',
    ]);
    const last = first.at(-1);
    if (last === undefined) throw new Error('none');
    const rest = await servedWhere(journal, 10, keep, { at: last.at, id: last.id });
    expect(rest.map((e) => e.detail)).toEqual(['400', '300', '200', '100', '0']);
    expect(await servedWhere(journal, 10, () => false)).toEqual([]);
  });
});
