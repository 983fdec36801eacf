import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../harness/postgres.js';
import { token, writeBoardConfig } from './board-kit.js';
import { killEverything, type Program, startBoard } from './processes.js';
import { median, quantile, sleep } from './stats.js';

/**
 * How soon an action queued through one board is handed over by another:
 * `node dist/bench/handover.js [ROUNDS]` (default 30). Two boards on a private PostgreSQL; an
 * announced machine whose address answers nothing; each round queues an action through board
 * a (POST /api/do → 200, queued in the store) while the machine reports to board b every few
 * milliseconds, and times from a's answer to the first report answer of b that carries the
 * action. Rounds start at random moments, so they fall anywhere in the boards' one-second tick.
 */
const rounds = Number(process.argv[2] ?? 30);
const REPORT_GAP_MS = 2;

const boardToken = token();
const registration = token();
const dir = mkdtempSync(join(tmpdir(), 'panoptes-handover-'));
const pg = await startPostgres();
const boards: Program[] = [];
try {
  const store = await pg.createDatabase('handover');
  for (const id of ['a', 'b']) {
    const config = writeBoardConfig(join(dir, id), {
      board_token: boardToken,
      registration_token: registration,
      board_id: id,
      store,
      history: false,
    });
    boards.push(await startBoard(config));
  }
  const [a, b] = boards as [Program, Program];
  const call = async (url: string, init: RequestInit & { token: string }) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${init.token}`);
    const response = await fetch(url, { ...init, headers });
    return { status: response.status, json: (await response.json()) as unknown };
  };
  const report = async (board: Program, results: unknown[] = []) => {
    const r = await call(`${board.url}/api/report`, {
      method: 'POST',
      token: registration,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab1', location: 'http://127.0.0.1:1/lab1', results }),
    });
    return ((r.json as { actions?: { id: string }[] }).actions ?? []).map((x) => x.id);
  };
  const until = async (what: string, check: () => Promise<boolean>) => {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  };
  await until('two live boards', async () => {
    const view = (await call(`${a.url}/api/cluster`, { token: boardToken })).json as {
      boards: { alive: boolean }[];
    };
    return view.boards.length === 2 && view.boards.every((x) => x.alive);
  });
  await report(a);
  await until('lab1 listed by b', async () => {
    const view = (await call(`${b.url}/api/board`, { token: boardToken })).json as {
      machines: { name: string }[];
    };
    return view.machines.some((m) => m.name === 'lab1');
  });

  const times: number[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    await sleep(Math.random() * 1000);
    const queued = await call(`${a.url}/api/do/lab1/backup/start`, {
      method: 'POST',
      token: boardToken,
    });
    const acknowledged = performance.now();
    if (queued.status !== 200) throw new Error(`POST /api/do answered ${queued.status}`);
    const { id } = queued.json as { id: string };
    let handedAt = 0;
    while (handedAt === 0) {
      if (performance.now() - acknowledged > 10_000) throw new Error(`${id} not handed over`);
      if ((await report(b)).includes(id)) handedAt = performance.now();
      else await sleep(REPORT_GAP_MS);
    }
    times.push(handedAt - acknowledged);
    process.stderr.write(
      `round ${round}: handed over by b ${times.at(-1)?.toFixed(0)} ms after a queued it\n`,
    );
    // The result empties the queue for the next round.
    const body = { what: 'backup', action: 'start', ok: true, exit_code: 0 };
    await report(b, [{ id, status: 200, body }]);
    await until('the queue empty on both boards', async () => {
      return (await report(a)).length === 0 && (await report(b)).length === 0;
    });
  }
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  process.stdout.write(
    `handover a → b over ${rounds} rounds: median ${ms(median(times))}, p90 ${ms(quantile(times, 0.9))}, ` +
      `min ${ms(Math.min(...times))}, max ${ms(Math.max(...times))}\n`,
  );
} finally {
  for (const board of boards) await board.stop();
  killEverything();
  pg.destroy();
  rmSync(dir, { recursive: true, force: true });
}
