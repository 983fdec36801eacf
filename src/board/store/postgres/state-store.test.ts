import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../../../../harness/postgres.js';
import type { BoardStore } from '../state.js';
import { stateContract } from '../state-contract.case.js';
import { PostgresStore } from './state-store.js';

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(() => server?.destroy());

const urls = new Map<BoardStore, string>();
let n = 0;
const open = async (url: string) => {
  const store = await PostgresStore.open({ url }, () => undefined);
  urls.set(store, url);
  return store;
};

stateContract('postgres', {
  fresh: async () => {
    n += 1;
    return open(await server.createDatabase(`state${n}`));
  },
  reopen: async (store) => {
    const url = urls.get(store) as string;
    await store.close();
    return open(url);
  },
});

describe('PostgreSQL: journal ids of several boards', () => {
  it('reserves disjoint blocks, and keeps an entry whose id another board took under a new one', async () => {
    const url = await server.createDatabase('ids');
    const a = await open(url);
    const b = await open(url);
    const [x, y] = [await a.journal.reserve?.(), await b.journal.reserve?.()];
    expect(x).toBeDefined();
    expect(Math.abs((x ?? 0) - (y ?? 0))).toBeGreaterThanOrEqual(64);
    const entry = (id: number, board: string) => ({
      id,
      at: '2026-11-24T00:00:00.000Z',
      who: 'board' as const,
      actor: { kind: 'board_token' as const, name: 'board_token' },
      op: 'do',
      target: 'lab1/job/start',
      outcome: 'done',
      status: 200,
      detail: `from ${board}`,
      board,
    });
    await a.journal.append(entry(5000, 'a'));
    // b numbered an entry itself while the store was away, with the same id.
    await b.journal.append(entry(5000, 'b'));
    // A retry of a's entry is not a third one.
    await a.journal.append(entry(5000, 'a'));
    const all = await a.journal.load();
    expect(all.map((e) => e.detail).sort()).toEqual(['from a', 'from b']);
    expect(all.find((e) => e.board === 'a')?.id).toBe(5000);
    await a.close();
    await b.close();
  });
});
