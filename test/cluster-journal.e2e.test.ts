import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'cluster-journal-token-3e5a7c9b1d'; // secret-scan: token
const REGISTRATION = 'cluster-journal-reg-4f6b8d0a2c'; // secret-scan: token

interface Entry {
  id: number;
  op: string;
  target: string;
  outcome: string;
  board?: string;
}

/**
 * One journal for the cluster, whatever number of boards is alive: a board left alone on the
 * PostgreSQL still serves the entries the stopped (or killed) boards wrote, from the store.
 */
describe('the journal of a board left alone', () => {
  const dir = tempDir('panoptes-cluster-journal-');
  const http = new Recorder();
  let pg: PgServer;
  const started: RunningProgram[] = [];
  const start = async (database: string, id: string, store: string) => {
    const config = writeBoardConfig(dir, `${database}-${id}`, {
      board_token: TOKEN,
      registration_token: REGISTRATION,
      board_id: id,
      failover_after: 2,
      sweep_interval: 0.5,
      store,
      history: false,
    });
    const board = await startBoard(config);
    started.push(board);
    return board;
  };
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    for (const board of started) await board.stop().catch(() => undefined);
    pg?.destroy();
    dir.cleanup();
  });

  const journal = async (board: RunningProgram) => {
    const reply = await http.call(`${board.url}/api/journal?limit=1000`, { token: TOKEN });
    expect(reply.status).toBe(200);
    return (reply.json as { entries: Entry[] }).entries;
  };
  const alive = async (board: RunningProgram) => {
    const view = (await http.call(`${board.url}/api/cluster`, { token: TOKEN })).json as {
      boards: { id: string; alive: boolean }[];
    };
    return new Map(view.boards.map((b) => [b.id, b.alive]));
  };
  /** A machine announced through `board`, and an action queued for it there: two entries. */
  const write = async (board: RunningProgram, machine: string) => {
    const report = await http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: machine, location: `http://127.0.0.1:1/${machine}` }),
    });
    expect(report.status).toBe(200);
    const queued = await http.call(`${board.url}/api/do/${machine}/backup/start`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(queued.status).toBe(200);
  };
  /** The ids of the entries `id` wrote, as it serves them itself. */
  const own = (board: RunningProgram, id: string) =>
    // A report's announcement is journaled after its answer: wait for it to be in the store.
    eventually(async () => {
      const ids = (await journal(board)).filter((e) => e.board === id).map((e) => e.id);
      return ids.length >= 2 ? ids : undefined;
    }, `two entries of ${id} served by it`);
  const listedBy = async (board: RunningProgram) =>
    new Set((await journal(board)).map((e) => e.id));

  /**
   * Boards `a` and `b` on a database of their own write entries; `b` ends (`end`); once `a`
   * counts it dead, `a` still lists b's entries, beside its own written before and after.
   */
  const leftAlone = async (database: string, end: (b: RunningProgram) => Promise<unknown>) => {
    const store = await pg.createDatabase(database);
    const a = await start(database, 'a', store);
    const b = await start(database, 'b', store);
    await eventually(
      async () => ((await alive(a)).get('b') === true ? true : undefined),
      'a sees b alive',
    );
    await write(a, 'lab-a');
    await write(b, 'lab-b');
    const fromB = await own(b, 'b');
    const fromA = await own(a, 'a');
    const both = await listedBy(a);
    for (const id of fromB) expect(both.has(id), `b's entry ${id} on a, b alive`).toBe(true);

    await end(b);
    await eventually(
      async () => ((await alive(a)).get('b') === false ? true : undefined),
      'a counts b dead',
    );
    await write(a, 'lab-a2');
    const entries = await journal(a);
    const left = new Set(entries.map((e) => e.id));
    for (const id of fromB) expect(left.has(id), `b's entry ${id} on a, b gone`).toBe(true);
    for (const id of fromA) expect(left.has(id), `a's entry ${id} on a, b gone`).toBe(true);
    expect(entries.filter((e) => e.target.startsWith('lab-a2'))).toHaveLength(2);
    // Every entry names the board that wrote it.
    expect(new Set(entries.map((e) => e.board))).toEqual(new Set(['a', 'b']));
  };

  it('keeps the entries of a board stopped (SIGTERM)', async () => {
    await leftAlone('stopped', (b) => b.stop());
  }, 60_000);

  it('keeps the entries of a board killed (kill -9)', async () => {
    await leftAlone('killed', (b) => b.kill9());
  }, 60_000);

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, REGISTRATION, pg.password],
    dirs: [dir.path],
  }));
});
