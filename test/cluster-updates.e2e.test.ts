import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'cluster-updates-token-7b3d5f1a9c'; // secret-scan: token
const REGISTRATION = 'cluster-updates-reg-2c4e6a8b0d'; // secret-scan: token
const AGENT = 'export const agent = "cluster";\n';
const SERVED = createHash('sha256').update(AGENT).digest('hex');
const OLD = '3'.repeat(64);

interface Entry {
  who: string;
  op: string;
  target: string;
  outcome: string;
  detail: string;
}

/**
 * An update asked for through one board of a cluster is kept in the shared store: the other
 * board hands it over when the machine reports there, once, and its outcome is journaled once.
 */
describe('updates from the board across boards', () => {
  const dir = tempDir('panoptes-cluster-updates-');
  const files = `${dir.path}/files`;
  const http = new Recorder();
  let pg: PgServer;
  let a: RunningProgram;
  let b: RunningProgram;
  beforeAll(async () => {
    dir.write('files/panoptes-agent.mjs', AGENT);
    pg = await startPostgres();
    const store = await pg.createDatabase('updates');
    const config = (id: string) =>
      writeBoardConfig(dir, id, {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        board_id: id,
        failover_after: 3,
        sweep_interval: 0.5,
        store,
        history: false,
        agent_files: files,
      });
    a = await startBoard(config('a'));
    b = await startBoard(config('b'));
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    pg?.destroy();
    dir.cleanup();
  });

  const report = async (board: RunningProgram, more: object = {}) =>
    (
      await http.call(`${board.url}/api/report`, {
        method: 'POST',
        token: REGISTRATION,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'lab1',
          location: 'http://127.0.0.1:1/lab1',
          interval_s: 1,
          updates: 'on',
          agent_file: 'panoptes-agent.mjs',
          agent_sha256: OLD,
          ...more,
        }),
      })
    ).json as { update?: { id: string } };
  const updates = async () =>
    (
      (await http.call(`${a.url}/api/journal?limit=1000`, { token: TOKEN })).json as {
        entries: Entry[];
      }
    ).entries
      .filter((e) => e.op === 'update' && e.target === 'lab1')
      .reverse();

  it('asked through one board, handed over by the other, its outcome journaled once', async () => {
    await eventually(async () => {
      const view = (await http.call(`${a.url}/api/cluster`, { token: TOKEN })).json as {
        boards: { alive: boolean }[];
      };
      return view.boards.length === 2 && view.boards.every((x) => x.alive) ? true : undefined;
    }, 'two live boards');
    await report(a);
    const asked = await http.call(`${a.url}/api/machines/lab1/update`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(asked.status).toBe(202);
    const id = (asked.json as { id: string }).id;
    // b reads the shared store within a second or so: then its answer hands the update over.
    const handed = await eventually(async () => (await report(b)).update, 'handed by b');
    expect(handed.id).toBe(id);
    // Once: neither board hands it again.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await report(a)).update).toBeUndefined();
    expect((await report(b)).update).toBeUndefined();
    const outcome = {
      state: 'rolled_back',
      to_sha256: SERVED,
      detail: 'the new file exited with code 3',
      at: new Date().toISOString(),
    };
    // The outcome reaches both boards (a load balancer may spread the reports).
    await report(b, { update_outcome: outcome });
    await report(a, { update_outcome: outcome });
    await eventually(
      async () => ((await updates()).some((e) => e.outcome === 'rolled_back') ? true : undefined),
      'the outcome',
    );
    await new Promise((r) => setTimeout(r, 1500));
    await report(a, { update_outcome: outcome });
    await report(b, { update_outcome: outcome });
    await new Promise((r) => setTimeout(r, 500));
    expect((await updates()).map((e) => `${e.who} ${e.outcome}`)).toEqual([
      'board queued',
      'board delivered',
      'machine rolled_back',
    ]);
  });

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, REGISTRATION, pg.password],
    dirs: [dir.path],
  }));
});
