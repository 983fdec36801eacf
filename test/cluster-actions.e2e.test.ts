import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { timedKeyProof } from '../src/shared/wire/key-proof.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'cluster-actions-token-9d1f3b5c7e'; // secret-scan: token
const REGISTRATION = 'cluster-actions-reg-0e2a4c6d8f'; // secret-scan: token
const LAB2_KEY = 'cluster-actions-lab2-key-1a3c5e7b'; // secret-scan: token

interface Entry {
  id: number;
  op: string;
  target: string;
  outcome: string;
  detail: string;
  board?: string;
}

/**
 * Reports and actions across two real boards on one PostgreSQL (a load balancer may spread an
 * agent's reports): a machine announced to one board is shown by the other; an action queued
 * through one is handed over by the other when the machine reports there, once per id; its
 * result, sent to both, is journaled once.
 */
describe('actions and the journal across boards', () => {
  const dir = tempDir('panoptes-cluster-actions-');
  const http = new Recorder();
  let pg: PgServer;
  let a: RunningProgram;
  let b: RunningProgram;
  beforeAll(async () => {
    pg = await startPostgres();
    const store = await pg.createDatabase('actions');
    const config = (id: string) =>
      writeBoardConfig(dir, id, {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        board_id: id,
        failover_after: 3,
        sweep_interval: 0.5,
        store,
        history: false,
        announced_keys: { lab2: LAB2_KEY },
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

  const report = (board: RunningProgram, results: unknown[] = []) =>
    http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab1', location: 'http://127.0.0.1:1/lab1', results }),
    });
  const entries = async (board: RunningProgram) =>
    (
      (await http.call(`${board.url}/api/journal?limit=1000`, { token: TOKEN })).json as {
        entries: Entry[];
      }
    ).entries;

  it('queued through one board, handed over by the other, its result journaled once', async () => {
    // Both boards alive and aware of each other first.
    await eventually(async () => {
      const view = (await http.call(`${a.url}/api/cluster`, { token: TOKEN })).json as {
        boards: { alive: boolean }[];
      };
      return view.boards.length === 2 && view.boards.every((x) => x.alive) ? true : undefined;
    }, 'two live boards');
    expect((await report(a)).status).toBe(200);
    // The machine announced to a is shown by b, with the board that took its report.
    await eventually(async () => {
      const view = (await http.call(`${b.url}/api/board`, { token: TOKEN })).json as {
        machines: { name: string; board: string | null; state: string }[];
      };
      const lab1 = view.machines.find((m) => m.name === 'lab1');
      return lab1?.board === 'a' && lab1.state === 'up' ? true : undefined;
    }, 'lab1 on b');

    const queued = await http.call(`${a.url}/api/do/lab1/backup/start`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(queued.status).toBe(200);
    const id = (queued.json as { id: string }).id;
    // lab1 now reports to b: b hands the action over (within a second of it being queued).
    const handed = await eventually(async () => {
      const r = await report(b);
      const ids = (r.json as { actions: { id: string }[] }).actions.map((x) => x.id);
      return ids.includes(id) ? ids : undefined;
    }, 'the action handed over by b');
    expect(handed).toEqual([id]);
    // And again by a, at least once (the agent runs an id once), not journaled twice.
    const again = (await report(a)).json as { actions: { id: string }[] };
    expect(again.actions.map((x) => x.id)).toEqual([id]);

    // The result goes to both boards (an agent retries a report that went unanswered).
    const result = [
      { id, status: 200, body: { what: 'backup', action: 'start', ok: true, exit_code: 0 } },
    ];
    expect((await report(a, result)).status).toBe(200);
    expect((await report(b, result)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    // One journal for the cluster: both boards serve the same entries, each id once.
    const all = await entries(a);
    const onB = await entries(b);
    expect(onB.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    expect(new Set(all.map((e) => e.board))).toEqual(new Set(['a', 'b']));
    const delivered = all.filter((e) => e.outcome === 'delivered' && e.detail.includes(id));
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.board).toBe('b');
    const results = all.filter((e) => e.detail.startsWith(`result of ${id}`));
    expect(results).toHaveLength(1);
    // Gone from both boards' queues.
    for (const board of [a, b]) {
      await eventually(async () => {
        const r = (await report(board)).json as { actions: unknown[] };
        return r.actions.length === 0 ? true : undefined;
      }, 'the queue empty everywhere');
    }
  }, 60_000);

  it('a machine forgotten on one board is gone from the other', async () => {
    const r = await http.call(`${b.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab3', location: 'http://127.0.0.1:1/lab3' }),
    });
    expect(r.status).toBe(200);
    const names = async (board: RunningProgram) =>
      (
        (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as {
          machines: { name: string }[];
        }
      ).machines.map((m) => m.name);
    await eventually(
      async () => ((await names(a)).includes('lab3') ? true : undefined),
      'lab3 on a',
    );
    const forgotten = await http.call(`${a.url}/api/machines/lab3`, {
      method: 'DELETE',
      token: TOKEN,
    });
    expect(forgotten.status).toBe(200);
    await eventually(
      async () => (!(await names(b)).includes('lab3') ? true : undefined),
      'lab3 gone from b',
    );
  });

  it('a machine enrolled on one board reports verified to the other; revoked on it, refused by both', async () => {
    const enrolled = (
      await http.call(`${a.url}/api/machines/lab5/enroll`, { method: 'POST', token: TOKEN })
    ).json as { key: string };
    const location = 'http://127.0.0.1:1/lab5';
    const send = (board: RunningProgram) => {
      const at = new Date().toISOString();
      return http.call(`${board.url}/api/report`, {
        method: 'POST',
        token: REGISTRATION,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'lab5',
          location,
          key_proof: timedKeyProof(enrolled.key, 'lab5', location, at),
          key_proof_at: at,
        }),
      });
    };
    const lab5 = async (board: RunningProgram) =>
      (
        (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as {
          machines: { name: string; verified: boolean | null }[];
        }
      ).machines.find((m) => m.name === 'lab5');
    // The other board reads the enrolment with the shared state, within a second or so (until
    // then it takes the report as from a name it holds no key for: unverified).
    await eventually(async () => {
      const status = (await send(b)).status;
      return status === 200 && (await lab5(b))?.verified === true ? true : undefined;
    }, 'b takes lab5 verified');
    expect(
      (await http.call(`${b.url}/api/machines/lab5`, { method: 'DELETE', token: TOKEN })).status,
    ).toBe(200);
    await eventually(
      async () => ((await send(a)).status === 403 ? true : undefined),
      'a refuses the revoked lab5',
    );
    expect((await send(b)).status).toBe(403);
    await eventually(
      async () => ((await lab5(a)) === undefined ? true : undefined),
      'a forgets lab5',
    );
    // Nor does b list it again from a record a published of a report it took before.
    expect(await lab5(b)).toBeUndefined();
  });

  it('a report with a key proof accepted by one board is refused as a replay by the other', async () => {
    const location = 'http://127.0.0.1:1/lab2';
    const at = new Date().toISOString();
    const body = JSON.stringify({
      name: 'lab2',
      location,
      key_proof: timedKeyProof(LAB2_KEY, 'lab2', location, at),
      key_proof_at: at,
    });
    const send = (board: RunningProgram) =>
      http.call(`${board.url}/api/report`, {
        method: 'POST',
        token: REGISTRATION,
        headers: { 'content-type': 'application/json' },
        body,
      });
    expect((await send(a)).status).toBe(200);
    // Once a has published lab2's record (its sweep, then b's read), b knows the proof's time.
    await eventually(async () => {
      const view = (await http.call(`${b.url}/api/board`, { token: TOKEN })).json as {
        machines: { name: string; verified?: boolean }[];
      };
      return view.machines.find((m) => m.name === 'lab2')?.verified === true ? true : undefined;
    }, 'lab2 on b');
    const replay = await send(b);
    expect(replay.status).toBe(403);
    expect((replay.json as { detail: string }).detail).toContain(
      'not newer than the last accepted',
    );
  });

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, REGISTRATION, LAB2_KEY, pg.password],
    dirs: [dir.path],
    // The enroll answer holds the registration token in its command, by design.
    allowText: (text) => text.startsWith('{"name":"lab5","key":'),
  }));
});
