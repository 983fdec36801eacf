import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { Receiver } from '../src/board/notify/channels/receivers.js';
import { reportBody } from './helpers/browser.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'cluster-checks-token-6a2e4c8b0d'; // secret-scan: token
const REGISTRATION = 'cluster-checks-reg-1f3b5d7e9a'; // secret-scan: token
const CHECKS = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];

/**
 * Two boards on one PostgreSQL both follow every check (each sees the runners' records), and a
 * check's change is sent once: by the board that owns the check's name.
 */
describe('check alerts across boards on one PostgreSQL', () => {
  const dir = tempDir('panoptes-cluster-checks-');
  const http = new Recorder();
  const hook = new Receiver();
  let pgServer: PgServer;
  const boards: RunningProgram[] = [];
  let tick = Date.now();

  beforeAll(async () => {
    pgServer = await startPostgres();
    await hook.start();
    const store = await pgServer.createDatabase('checks');
    for (const id of ['a', 'b']) {
      boards.push(
        await startBoard(
          writeBoardConfig(dir, id, {
            board_token: TOKEN,
            registration_token: REGISTRATION,
            board_id: id,
            failover_after: 3,
            sweep_interval: 0.3,
            stale_after: 600,
            store,
            history: false,
            checks: CHECKS.map((name) => ({
              name,
              type: 'tcp',
              target: `${name}.example:443`,
              interval: 5,
              runners: { selector: 'role=probe' },
              failure_threshold: 1,
            })),
            notify: {
              channels: [{ name: 'hook', url: `http://${hook.host}/${id}` }],
              rules: [{ events: ['check'], channels: ['hook'] }],
            },
          }),
        ),
      );
    }
    const [a] = boards as [RunningProgram];
    await eventually(async () => {
      const view = (await http.call(`${a.url}/api/cluster`, { token: TOKEN })).json as {
        boards: { alive: boolean }[];
      };
      return view.boards.length === 2 && view.boards.every((x) => x.alive) ? true : undefined;
    }, 'two live boards');
  }, 60_000);
  afterAll(async () => {
    for (const b of boards) await b.stop();
    await hook.stop();
    pgServer?.destroy();
    dir.cleanup();
  });

  it("each check's down is sent once, by one board, though both boards follow it", async () => {
    const [a, b] = boards as [RunningProgram, RunningProgram];
    const report = (ok: boolean) => {
      tick += 1000;
      const at = new Date(tick).toISOString();
      return http.call(`${a.url}/api/report`, {
        method: 'POST',
        token: REGISTRATION,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ...reportBody('p1', 'http://p1.lab:8701', []),
          checks_version: '',
          checks: CHECKS.map((name) => ({ name, ok, ms: 5, detail: ok ? '' : 'refused', at })),
        }),
      });
    };
    expect((await report(true)).status).toBe(200);
    const labelled = await http.call(`${a.url}/api/machines/p1/labels`, {
      method: 'PUT',
      token: TOKEN,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ labels: { role: 'probe' } }),
    });
    expect(labelled.status).toBe(200);
    const states = async (board: RunningProgram) =>
      ((await http.call(`${board.url}/api/checks`, { token: TOKEN })).json as { state: string }[])
        .map((c) => c.state)
        .join(',');
    // Both boards follow the checks: up from the report, on b through the shared records.
    for (const board of [a, b]) {
      await eventually(
        async () => {
          expect((await report(true)).status).toBe(200);
          return (await states(board)) === CHECKS.map(() => 'up').join(',') ? true : undefined;
        },
        `every check up on ${board === a ? 'a' : 'b'}: ${await states(a)} | ${await states(b)}`,
        20_000,
      );
    }
    expect((await report(false)).status).toBe(200);
    for (const board of [a, b]) {
      await eventually(
        async () =>
          (await states(board)) === CHECKS.map(() => 'down').join(',') ? true : undefined,
        'every check down on both boards',
        20_000,
      );
    }
    const sent = () =>
      hook.requests.flatMap((r) =>
        (JSON.parse(r.body) as { events: { check: string; state: string }[] }).events
          .filter((e) => e.state === 'down')
          .map((e) => ({ board: r.path, check: e.check })),
      );
    await eventually(
      async () => (sent().length >= CHECKS.length ? true : undefined),
      'every down sent',
    );
    // Time for a second sending, were there one.
    await new Promise((r) => setTimeout(r, 2000));
    const downs = sent();
    expect(downs.map((d) => d.check).sort()).toEqual(CHECKS);
    // The checks' names spread over both boards: each sends those it owns.
    expect(new Set(downs.map((d) => d.board))).toEqual(new Set(['/a', '/b']));
  });
});
