import { afterAll, beforeAll } from 'vitest';
import { type PgServer, startPostgres } from '../../../../test/helpers/postgres.js';
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
