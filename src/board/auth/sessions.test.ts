import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { TokenBook } from './api-tokens.js';
import type { AuthTable } from './auth-table.js';
import { readBindings } from './roles.js';
import { SessionBook } from './sessions.js';

const VIEWER = [{ role: 'viewer' as const, selector: null }];

/** The table as board B sees it: `meanwhile` runs (board A's revocation) after each read. */
function racing(table: AuthTable, meanwhile: () => Promise<unknown>): AuthTable {
  return {
    ...table,
    get: async (kind, id, now) => {
      const found = await table.get(kind, id, now);
      await meanwhile();
      return found;
    },
  };
}

/** Two boards over one table: what one ends, the other's note of its use must not revive. */
describe('a late write of seen_at or last_used_at never brings back what was ended', () => {
  it('a session signed out on board A while board B reads it stays signed out', async () => {
    const clock = new ManualClock();
    const table = new MemoryStore().auth;
    const a = new SessionBook(table, clock);
    const secret = await a.start('kim', 'password', VIEWER);
    const b = new SessionBook(
      racing(table, () => a.end(a.idOf(secret))),
      clock,
    );
    clock.advance(61_000); // B notes the use (seen_at is over a minute old)
    await b.find(secret);
    await new Promise((r) => setTimeout(r, 10));
    expect(await table.get('session', a.idOf(secret), clock.now())).toBeNull();
  });

  it('a token deleted on board A while board B reads it stays deleted', async () => {
    const clock = new ManualClock();
    const table = new MemoryStore().auth;
    const covers = async () => true;
    const a = new TokenBook(table, clock, covers);
    const made = await a.create('ci', readBindings(VIEWER), null, null);
    const b = new TokenBook(
      racing(table, () => a.remove(made.body.id)),
      clock,
      covers,
    );
    await b.find(made.token);
    await new Promise((r) => setTimeout(r, 10));
    expect(await a.list()).toEqual([]);
  });
});
