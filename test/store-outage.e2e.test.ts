import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'outage-board-token-3c5e7a9b1d'; // secret-scan: token
const REGISTRATION = 'outage-registration-4d6f8b0c2e'; // secret-scan: token

interface Entry {
  id: number;
  op: string;
  target: string;
  outcome: string;
}

/**
 * A real PostgreSQL stopped and started again under a running board: the
 * board keeps serving the view, polling and taking reports; a queued action and a silence are
 * refused with 503 (never acknowledged and lost); journal entries of the gap wait and are
 * written when the store is back, without a restart; one log line when it is lost, one when it
 * is back; /metrics says so; the store's password never appears anywhere.
 */
describe('the store goes away under a running board (PostgreSQL stopped, then started)', () => {
  const dir = tempDir('panoptes-outage-');
  const http = new Recorder();
  let pg: PgServer;
  let board: RunningProgram;
  let configDir: string;
  const report = (name: string) =>
    http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, location: `http://127.0.0.1:1/${name}` }),
    });
  const queue = () =>
    http.call(`${board.url}/api/do/lab1/backup/start`, { method: 'POST', token: TOKEN });
  const journal = async () =>
    (
      (await http.call(`${board.url}/api/journal?limit=1000`, { token: TOKEN })).json as {
        entries: Entry[];
      }
    ).entries;
  const storeUp = async () =>
    /panoptes_store_up\{engine="postgres"\} (\d)/.exec(
      (await http.call(`${board.url}/metrics`, { token: TOKEN })).text,
    )?.[1];

  beforeAll(async () => {
    pg = await startPostgres();
    configDir = writeBoardConfig(dir, 'b', {
      board_token: TOKEN,
      registration_token: REGISTRATION,
      sweep_interval: 0.3,
      store: await pg.createDatabase('outage'),
    });
    board = await startBoard(configDir);
  }, 60_000);
  afterAll(async () => {
    await board?.stop();
    pg?.destroy();
    dir.cleanup();
  });

  it('refuses what must be durable with 503, keeps the rest, and recovers by itself', async () => {
    expect((await report('lab1')).status).toBe(200);
    expect((await queue()).status).toBe(200);
    expect(await storeUp()).toBe('1');

    pg.stop('fast');
    // What must be durable before it is acknowledged: refused, with the documented body.
    const refused = await eventually(async () => {
      const r = await queue();
      return r.status === 503 ? r : undefined;
    }, 'a 503');
    expect(refused.headers.get('retry-after')).toBe('10');
    expect((refused.json as { detail: string }).detail).toMatch(/store unavailable/);
    const silence = await http.call(`${board.url}/api/machines/lab1/silence`, {
      method: 'POST',
      token: TOKEN,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ minutes: 5, reason: 'maintenance' }),
    });
    expect(silence.status).toBe(503);
    // The rest goes on from memory: view, health, reports (a new machine is announced: its
    // journal entry waits for the store).
    expect((await http.call(`${board.url}/api/health`)).status).toBe(200);
    expect((await report('lab2')).status).toBe(200);
    const view = (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as {
      machines: { name: string; silenced_until: string | null }[];
    };
    expect(view.machines.map((m) => m.name)).toEqual(['lab1', 'lab2']);
    expect(view.machines[0]?.silenced_until).toBeNull();
    expect((await journal()).some((e) => e.op === 'announce' && e.target === 'lab2')).toBe(true);
    expect(await storeUp()).toBe('0');
    // A few seconds of sweeps (history) and probes: counted, logged once.
    await new Promise((r) => setTimeout(r, 3000));
    const lost = () => board.output.filter((l) => l.includes('store cannot write'));
    expect(lost()).toHaveLength(1);

    pg.start();
    await eventually(
      async () => ((await queue()).status === 200 ? true : undefined),
      'a queued action once PostgreSQL is back',
      30_000,
    );
    await eventually(
      async () => (board.output.some((l) => l.includes('store writes again')) ? true : undefined),
      'the line that says the store writes again',
      30_000,
    );
    expect(board.output.filter((l) => l.includes('store writes again'))).toHaveLength(1);
    expect(lost()).toHaveLength(1);
    expect(await storeUp()).toBe('1');

    // What waited was written: after a restart the gap's journal entry is still there, and
    // exactly the acknowledged actions are queued (the refused ones are not).
    expect((await board.stop()).code).toBe(0);
    board = await startBoard(configDir);
    const entries = await journal();
    expect(entries.filter((e) => e.op === 'announce' && e.target === 'lab2')).toHaveLength(1);
    const queued = entries.filter((e) => e.outcome === 'queued' && e.op === 'do');
    expect(queued).toHaveLength(2);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    const handed = ((await report('lab1')).json as { actions: unknown[] }).actions;
    expect(handed).toHaveLength(2);
  }, 120_000);

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, REGISTRATION, pg.password],
    dirs: [dir.path],
  }));
});
