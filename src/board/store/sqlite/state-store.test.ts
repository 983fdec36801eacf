import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { BoardStore } from '../state.js';
import { stateContract } from '../state-contract.case.js';
import { SqliteStore } from './state-store.js';

const root = mkdtempSync(join(tmpdir(), 'panoptes-state-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dirs = new Map<BoardStore, string>();
let n = 0;

stateContract('sqlite', {
  fresh: async () => {
    n += 1;
    const dir = join(root, `s${n}`);
    const store = SqliteStore.open(dir);
    dirs.set(store, dir);
    return store;
  },
  reopen: async (store) => {
    const dir = dirs.get(store) as string;
    await store.close();
    const again = SqliteStore.open(dir);
    dirs.set(again, dir);
    return again;
  },
});
