import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { startBoard } from '../harness/processes.js';
import { blackHole, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'durable-board-token-0123456789';
const REGISTRATION = 'durable-registration-0123456789';

interface Entry {
  op: string;
  target: string;
  outcome: string;
  detail: string;
}

/** The same tests on both engines of the store: embedded SQLite, and a real PostgreSQL. */
describe.each(['sqlite', 'postgres'] as const)('nothing acknowledged is lost (%s)', (engine) => {
  const dir = tempDir();
  const http = new Recorder();
  let pg: PgServer | null = null;
  let configDir = '';
  beforeAll(async () => {
    let store: Record<string, string> = {};
    if (engine === 'postgres') {
      pg = await startPostgres();
      store = { store: await pg.createDatabase('durability') };
    }
    configDir = writeBoardConfig(dir, 'b', {
      board_token: TOKEN,
      registration_token: REGISTRATION,
      ...store,
    });
  }, 60_000);
  afterAll(() => {
    pg?.destroy();
    dir.cleanup();
  });

  const report = (url: string) =>
    http.call(`${url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab3', location: 'http://lab3.example' }),
    });

  it('survives kill -9 in the middle of a stream of actions: every acknowledged one is journaled and still queued', async () => {
    const board = await startBoard(configDir);
    expect((await report(board.url)).status).toBe(200);
    const acknowledged: string[] = [];
    let killed = false;
    const fire = async (i: number) => {
      try {
        const r = await http.call(`${board.url}/api/do/lab3/job${i}/start`, {
          method: 'POST',
          token: TOKEN,
        });
        if (r.status === 200) acknowledged.push((r.json as { id: string }).id);
      } catch {
        // cut off by the kill: not acknowledged
      }
      if (acknowledged.length >= 20 && !killed) {
        killed = true;
        await board.kill9();
      }
    };
    await Promise.all(Array.from({ length: 60 }, (_, i) => fire(i)));
    if (!killed) await board.kill9();
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);

    const again = await startBoard(configDir);
    try {
      const entries = (
        (await http.call(`${again.url}/api/journal?limit=10000`, { token: TOKEN })).json as {
          entries: Entry[];
        }
      ).entries;
      const journaled = new Set(
        entries
          .filter((e) => e.outcome === 'queued')
          .map((e) => e.detail.split(' ')[2]?.replace(':', '')),
      );
      for (const id of acknowledged) expect(journaled.has(id)).toBe(true);
      // The machine was announced before the crash: it is back, red, until it reports.
      const view = (await http.call(`${again.url}/api/board`, { token: TOKEN })).json as {
        machines: { name: string; state: string; queued: number }[];
      };
      const lab3 = view.machines.find((m) => m.name === 'lab3');
      expect(lab3?.state).toBe('down');
      expect(lab3?.queued).toBeGreaterThanOrEqual(acknowledged.length);
      const handed = ((await report(again.url)).json as { actions: { id: string }[] }).actions.map(
        (a) => a.id,
      );
      for (const id of acknowledged) expect(handed).toContain(id);
    } finally {
      await again.stop();
    }
  });

  it("imports an earlier version's journal with a torn last line, skipping and counting it", async () => {
    const old = writeBoardConfig(dir, `old-${engine}`, {
      board_token: TOKEN,
      ...(pg === null ? {} : { store: await pg.createDatabase('torn') }),
    });
    const line = (id: number) =>
      JSON.stringify({
        id,
        at: '2026-01-01T00:00:00.000Z',
        who: 'board',
        op: 'forget',
        target: `lab${id}`,
        outcome: 'forgotten',
        status: 200,
        detail: 'forgotten',
      });
    dir.write(
      `old-${engine}/data/journal.jsonl`,
      `${line(1)}\n${line(2)}\n{"id": 99999, "at": "2026-`,
    );
    const board = await startBoard(old);
    try {
      const imported = board.output.find((l) => l.includes('imported the data directory'));
      expect(imported).toContain('"skipped":1');
      expect(imported).toContain('"journal":2');
      const r = await http.call(`${board.url}/api/journal`, { token: TOKEN });
      const targets = (r.json as { entries: Entry[] }).entries.map((e) => e.target);
      expect(targets).toEqual(['lab2', 'lab1']);
    } finally {
      await board.stop();
    }
  });

  it('SIGTERM finishes gracefully with exit code 0 and keeps announced machines', async () => {
    const board = await startBoard(configDir);
    expect((await http.call(`${board.url}/api/health`)).status).toBe(200);
    const exit = await board.stop(10_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(board.output.some((l) => l.includes('board stopped'))).toBe(true);
    const again = await startBoard(configDir);
    try {
      const view = (await http.call(`${again.url}/api/board`, { token: TOKEN })).json as {
        machines: { name: string }[];
      };
      expect(view.machines.map((m) => m.name)).toEqual(['lab3']);
    } finally {
      await again.stop();
    }
  });

  it('SIGTERM lets a request in flight finish before the board exits 0', async () => {
    const hole = await blackHole();
    const slowDir = writeBoardConfig(dir, `slow-${engine}`, {
      board_token: TOKEN,
      poll_timeout: 2,
      sweep_interval: 60,
      machines: [{ name: 'silent', url: hole.url, key: 'silent-machine-key-0123456789' }],
      ...(pg === null ? {} : { store: await pg.createDatabase('slow') }),
    });
    const board = await startBoard(slowDir);
    try {
      const inFlight = http.call(`${board.url}/api/do/silent/job/start`, {
        method: 'POST',
        token: TOKEN,
      });
      await new Promise((r) => setTimeout(r, 300));
      const exited = board.stop(15_000);
      // The relay waits out its 2 s time-out, is answered, and only then does the board exit.
      const answer = await inFlight;
      expect(answer.status).toBe(504);
      expect(answer.json).toEqual({
        detail: "Machine 'silent' is unreachable: no answer within 2 s",
      });
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      await hole.close();
    }
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, REGISTRATION, ...(pg === null ? [] : [pg.password])],
    dirs: [dir.path],
  }));
});
