import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { rssOf } from './helpers/faulty-agents.js';
import { Recorder, writeBoardConfig } from './helpers/fleet.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'flood-board-token-1d3f5b7d9f1b';
const REGISTRATION = 'flood-registration-2e4a6c8e0a2c';
const SECRETS = [TOKEN, REGISTRATION];

/** Reports under random names: 100,000 in npm test (PANOPTES_FLOOD_NAMES to change). */
const NAMES = Number(process.env.PANOPTES_FLOOD_NAMES ?? 100_000);
const MAX_ANNOUNCED = 2000;
const MAX_ANNOUNCED_MB = 8;
const MB = 1024 * 1024;

interface BoardJson {
  machines: { name: string; origin: string; overview: unknown }[];
}

describe('abuse: a registration-token holder floods the board with names and big reports', () => {
  const dir = tempDir('panoptes-flood-');
  const http = new Recorder();
  const received: string[] = [];
  let board: RunningProgram;
  let pool: Pool;
  let maxRss = 0;
  let baseRss = 0;
  let sampler: NodeJS.Timeout | undefined;
  const accepted: string[] = [];

  /** Posts reports from `bodies` over 32 keep-alive connections; counts answers by status. */
  async function flood(
    count: number,
    body: (i: number) => string,
  ): Promise<Record<number, number>> {
    const statuses: Record<number, number> = {};
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const i = next;
        next += 1;
        const text = body(i);
        const r = await pool.request({
          method: 'POST',
          path: '/api/report',
          headers: { authorization: `Bearer ${REGISTRATION}`, 'content-type': 'application/json' },
          body: text,
        });
        const answer = await r.body.text();
        statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
        if (r.statusCode === 200) accepted.push((JSON.parse(text) as { name: string }).name);
        else if (statuses[r.statusCode] === 1) received.push(answer);
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    return statuses;
  }

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        max_announced: MAX_ANNOUNCED,
        max_announced_mb: MAX_ANNOUNCED_MB,
      }),
      { env: { PANOPTES_LOG_LEVEL: 'info' } },
    );
    pool = new Pool(board.url, { connections: 32, pipelining: 1 });
    baseRss = await rssOf(board.pid);
    sampler = setInterval(() => {
      rssOf(board.pid)
        .then((rss) => {
          maxRss = Math.max(maxRss, rss);
        })
        .catch(() => undefined);
    }, 100);
  });

  afterAll(async () => {
    clearInterval(sampler);
    await pool?.close();
    await board?.stop();
    dir.cleanup();
  });

  it(`${NAMES} random names: never more than max_announced machines; refusals journaled at most once a minute`, async () => {
    const statuses = await flood(NAMES, (i) =>
      JSON.stringify({
        name: `flood-${i}-${Math.random().toString(36).slice(2, 10)}`,
        location: 'http://flood.example:8701',
        hostname: 'flood',
        cpus: 4,
      }),
    );
    expect(statuses[200]).toBe(MAX_ANNOUNCED);
    expect(statuses[409]).toBe(NAMES - MAX_ANNOUNCED);
    const view = (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as BoardJson;
    expect(view.machines.filter((m) => m.origin === 'announced')).toHaveLength(MAX_ANNOUNCED);
    const entries = (
      (await http.call(`${board.url}/api/journal?limit=10000`, { token: TOKEN })).json as {
        entries: { op: string; target: string; outcome: string; detail: string }[];
      }
    ).entries;
    const refusals = entries.filter((e) => e.op === 'report' && e.outcome === 'refused');
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(refusals.length).toBeLessThanOrEqual(2);
    expect(refusals[0]?.detail).toMatch(/report\(s\) of new names refused/);
    console.log(
      `flood: ${NAMES} names -> ${JSON.stringify(statuses)}; ${refusals.length} refusal entries`,
    );
  }, 180_000);

  it(`big reports under the accepted names fill at most max_announced_mb (${MAX_ANNOUNCED_MB} MiB) of overviews`, async () => {
    const pad = 'p'.repeat(60 * 1024);
    const names = accepted.slice(0, 600);
    const statuses = await flood(names.length, (i) =>
      JSON.stringify({ name: names[i], location: 'http://flood.example:8701', pad }),
    );
    // Some grew, then the room ran out: the rest were refused, FastAPI-shaped.
    expect(statuses[200]).toBeGreaterThan(0);
    expect(statuses[409]).toBeGreaterThan(0);
    expect(received.some((t) => t.includes('max_announced_mb'))).toBe(true);
    const view = (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as BoardJson;
    const held = view.machines.reduce((sum, m) => sum + JSON.stringify(m.overview).length, 0);
    expect(held).toBeLessThanOrEqual(MAX_ANNOUNCED_MB * MB);
    expect(held).toBeGreaterThan((MAX_ANNOUNCED_MB * MB) / 2);
    console.log(
      `flood: big reports -> ${JSON.stringify(statuses)}; overviews held ${(held / MB).toFixed(1)} MiB`,
    );
  }, 120_000);

  it('the board still serves its view and the live feed, and its memory stayed bounded', async () => {
    expect((await http.call(`${board.url}/api/board`, { token: TOKEN })).status).toBe(200);
    const socket = new WebSocket(`${board.url.replace('http', 'ws')}/api/live?token=${TOKEN}`);
    const first = await new Promise<string>((resolve, reject) => {
      socket.once('message', (m) => resolve(String(m)));
      socket.once('error', reject);
      socket.once('close', (code) => reject(new Error(`closed ${code}`)));
    });
    received.push(first.slice(0, 1000));
    expect(first.startsWith('{"type":"board"')).toBe(true);
    socket.terminate();
    // Generous: the overviews held are bounded by max_announced_mb, a few copies of them at most.
    expect(maxRss - baseRss).toBeLessThan(200 * MB);
    expect(board.child.exitCode).toBeNull();
    console.log(
      `flood: board RSS ${Math.round(baseRss / MB)} MB at start, at most ${Math.round(maxRss / MB)} MB`,
    );
  });

  it('leaves no secret anywhere', () => {
    expectNoSecrets({ secrets: SECRETS, recorders: [http], texts: received, dirs: [dir.path] });
  });
});
