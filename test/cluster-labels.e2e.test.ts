import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'cluster-labels-token-3b5d7f9a1c'; // secret-scan: token
const REGISTRATION = 'cluster-labels-reg-4c6e8a0b2d'; // secret-scan: token

scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION] }));

interface Row {
  name: string;
  state: string;
  board: string | null;
  labels: Record<string, string>;
  board_labels: string[];
}

/** The bound: every board of a cluster sees the same labels within a second. */
const BOUND_MS = 1000;

/**
 * Labels across two real boards on one PostgreSQL (DESIGN section 9): board labels PUT through
 * one board are shown by the other within a second (the change wakes it, NOTIFY, as the queue
 * does); the labels an agent reports to one board are shown by the other (they travel in the
 * shared record's meta).
 */
describe('labels across boards on one PostgreSQL', () => {
  const dir = tempDir('panoptes-cluster-labels-');
  const http = new Recorder();
  let pgServer: PgServer;
  let store: string;
  let a: RunningProgram;
  let b: RunningProgram;

  beforeAll(async () => {
    pgServer = await startPostgres();
    store = await pgServer.createDatabase('labels');
    const config = (id: string) =>
      writeBoardConfig(dir, id, {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        board_id: id,
        failover_after: 3,
        sweep_interval: 0.5,
        store,
        history: false,
      });
    a = await startBoard(config('a'));
    b = await startBoard(config('b'));
    await eventually(async () => {
      const view = (await http.call(`${a.url}/api/cluster`, { token: TOKEN })).json as {
        boards: { alive: boolean }[];
      };
      return view.boards.length === 2 && view.boards.every((x) => x.alive) ? true : undefined;
    }, 'two live boards');
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    pgServer?.destroy();
    dir.cleanup();
  });

  const report = (board: RunningProgram, name: string, labels: Record<string, string>) =>
    http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, location: `http://127.0.0.1:1/${name}`, labels }),
    });
  const row = async (board: RunningProgram, name: string): Promise<Row | undefined> =>
    (
      (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as { machines: Row[] }
    ).machines.find((m) => m.name === name);

  it('the labels an agent reports to one board are shown by the other', async () => {
    expect((await report(a, 'lab1', { team: 'db', role: 'primary' })).status).toBe(200);
    const seen = await eventually(async () => {
      const r = await row(b, 'lab1');
      return r?.board === 'a' && r.labels.team === 'db' ? r : undefined;
    }, 'lab1 with its agent labels on b');
    expect(seen.labels).toEqual({ role: 'primary', team: 'db' });
    expect(seen.board_labels).toEqual([]);
    // Changed by the agent: changed on b; and a selector on b selects by them.
    expect((await report(a, 'lab1', { team: 'web' })).status).toBe(200);
    await eventually(async () => {
      const r = await row(b, 'lab1');
      return r?.labels.team === 'web' && r.labels.role === undefined ? true : undefined;
    }, 'lab1 relabelled by its agent on b');
    const selected = (
      await http.call(`${b.url}/api/board?selector=${encodeURIComponent('team=web')}`, {
        token: TOKEN,
      })
    ).json as { machines: Row[] };
    expect(selected.machines.map((m) => m.name)).toEqual(['lab1']);
  }, 30_000);

  it('board labels PUT through one board wake the other, which shows them within a second', async () => {
    expect((await report(a, 'lab2', {})).status).toBe(200);
    await eventually(
      async () => ((await row(b, 'lab2'))?.state === 'up' ? true : undefined),
      'lab2 on b',
    );
    // What wakes the other boards: a NOTIFY at the commit of the change (as a queued action's).
    const listener = new pg.Client({ connectionString: store });
    await listener.connect();
    const woken: string[] = [];
    listener.on('notification', (n) => woken.push(n.payload ?? ''));
    await listener.query('LISTEN panoptes_records');
    try {
      const took: number[] = [];
      for (const [i, site] of ['fra', 'ams', 'par', 'fra', 'ams'].entries()) {
        const put = await http.call(`${a.url}/api/machines/lab2/labels`, {
          method: 'PUT',
          token: TOKEN,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ labels: { site, round: `r${i}` } }),
        });
        expect(put.status).toBe(200);
        const started = Date.now();
        // Polled every 50 ms; the bound is a second.
        for (;;) {
          const r = await row(b, 'lab2');
          if (r?.labels.site === site && r.labels.round === `r${i}`) {
            expect(r.board_labels).toEqual(['round', 'site']);
            break;
          }
          if (Date.now() - started >= BOUND_MS)
            throw new Error(`b did not show lab2 site=${site} within ${BOUND_MS} ms (${took})`);
          await new Promise((r) => setTimeout(r, 50));
        }
        took.push(Date.now() - started);
      }
      console.log(`board labels on the other board after (ms): ${took.join(', ')}`);
      expect(woken.filter((p) => p === 'labels').length).toBeGreaterThanOrEqual(5);
      // Taken off (the row deleted): woken too, and shown.
      woken.length = 0;
      const cleared = await http.call(`${a.url}/api/machines/lab2/labels`, {
        method: 'PUT',
        token: TOKEN,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ labels: {} }),
      });
      expect(cleared.status).toBe(200);
      const started = Date.now();
      await eventually(
        async () => {
          const r = await row(b, 'lab2');
          return r !== undefined && r.board_labels.length === 0 ? true : undefined;
        },
        'lab2 without board labels on b',
        BOUND_MS,
      );
      expect(Date.now() - started).toBeLessThan(BOUND_MS);
      expect(woken).toContain('labels');
    } finally {
      await listener.end();
    }
  }, 60_000);

  it('a selector silence started through one board holds on the other, and ended there ends on both', async () => {
    expect((await report(a, 'lab3', { site: 'mad' })).status).toBe(200);
    await eventually(
      async () => ((await row(b, 'lab3'))?.labels.site === 'mad' ? true : undefined),
      'lab3 on b',
    );
    const started = await http.call(`${a.url}/api/silences`, {
      method: 'POST',
      token: TOKEN,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ selector: 'site=mad', minutes: 30 }),
    });
    expect(started.status).toBe(201);
    const silence = started.json as { id: string; until: string };
    const listed = async (board: RunningProgram) =>
      (
        (await http.call(`${board.url}/api/silences`, { token: TOKEN })).json as {
          silences: { id: string }[];
        }
      ).silences.map((s) => s.id);
    await eventually(async () => {
      const r = (await row(b, 'lab3')) as (Row & { silenced_until: string | null }) | undefined;
      const held = (await listed(b)).includes(silence.id) && r?.silenced_until === silence.until;
      return held ? true : undefined;
    }, 'the silence on b, covering lab3');
    const ended = await http.call(`${b.url}/api/silences/${silence.id}`, {
      method: 'DELETE',
      token: TOKEN,
    });
    expect(ended.status).toBe(200);
    await eventually(
      async () => ((await listed(a)).length === 0 ? true : undefined),
      'the silence gone on a',
    );
  }, 30_000);
});
