import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BoardApp, buildBoard } from '../src/board/app.js';
import { boardSettings } from '../src/board/config/config.js';
import { ManualClock } from '../src/shared/clock.js';
import { createLogger } from '../src/shared/logger.js';
import { FakeClient, TOKEN } from './helpers/board-kit.js';
import { type TempDir, tempDir } from './helpers/tmp.js';

const REGISTRATION = 'registration-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const overview = (cpu: number) => ({
  cpu_use: cpu,
  memory: { total: 1000, used: 250 },
  load: [1.5, 1, 1],
  disks: [
    { path: '/', total: 100, used: 40 },
    { path: '/data', total: 100, used: 90 },
  ],
});

describe('history API (in-process board, manual clock, real history.db)', () => {
  let dir: TempDir;
  let clock: ManualClock;
  let client: FakeClient;
  let b: BoardApp;

  const build = async (extra: Record<string, unknown> = {}) =>
    buildBoard({
      settings: boardSettings(
        {
          board_token: TOKEN,
          registration_token: REGISTRATION,
          data_dir: dir.path,
          machines: [{ name: 'web1', url: 'http://web1:8701', key: 'web1-key-0123456789' }],
          ...extra,
        },
        '/etc/panoptes/board.yaml',
        null,
      ),
      logger: createLogger('board', 'silent'),
      clock,
      client,
    });
  const get = async (url: string) => {
    const r = await b.app.inject({ method: 'GET', url, headers: auth });
    return { status: r.statusCode, body: r.json() as Record<string, unknown> };
  };
  /** Sweeps every `stepMs` for `count` sweeps, with web1 up or down. */
  const sweeps = async (count: number, up: boolean, stepMs = 5000) => {
    client.overviews.set(
      'http://web1:8701',
      up
        ? { ok: true, overview: overview(0.25), latencyMs: 12 }
        : { ok: false, error: 'timed out' },
    );
    for (let i = 0; i < count; i += 1) {
      clock.advance(stepMs);
      await b.board.sweep();
    }
    await b.history?.recorder.settled();
  };

  beforeEach(async () => {
    dir = tempDir();
    clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    client = new FakeClient();
    b = await build();
  });
  afterEach(async () => {
    await b.close();
    dir.cleanup();
  });

  it('answers column arrays of equal length spanning the whole window, null where nothing was recorded', async () => {
    await sweeps(12, true); // one minute of sweeps, up
    const { status, body } = await get('/api/machines/web1/history?range=1h&points=60');
    expect(status).toBe(200);
    expect(body.name).toBe('web1');
    expect(body.range).toBe('1h');
    expect(body.step_s).toBe(60);
    const series = body.series as Record<string, (number | null)[]>;
    const now = clock.now() / 1000;
    expect(Object.keys(series).sort()).toEqual(
      [
        'bells',
        'cpu',
        'disk',
        'gpu_mem',
        'gpu_util',
        'latency_ms',
        'load',
        'mem',
        'net_rx',
        'net_tx',
        't',
        'temp_max',
        'up',
      ].sort(),
    );
    for (const column of Object.values(series)) expect(column).toHaveLength(60);
    expect(series.t?.[0]).toBe(now - 3600);
    expect(series.t?.every((t, i, all) => i === 0 || (t ?? 0) > (all[i - 1] ?? 0))).toBe(true);
    // The first 59 minutes: nothing recorded. The last: the twelve sweeps.
    expect(series.cpu?.slice(0, 58).every((v) => v === null)).toBe(true);
    expect(series.cpu?.at(-1)).toBeCloseTo(0.25, 4);
    expect(series.mem?.at(-1)).toBeCloseTo(0.25, 4);
    expect(series.load?.at(-1)).toBeCloseTo(1.5, 4);
    expect(series.disk?.at(-1)).toBeCloseTo(0.9, 4);
    // The sweep times the poll on the board's clock, which a manual clock keeps still.
    expect(series.latency_ms?.at(-1)).toBe(0);
    expect(series.up?.at(-1)).toBe(1);
  });

  it('serves a custom from/to window (ISO or epoch seconds) and records a down machine as up 0', async () => {
    await sweeps(6, true);
    await sweeps(6, false);
    const to = clock.now() / 1000;
    const from = to - 60;
    const { body } = await get(
      `/api/machines/web1/history?from=${new Date(from * 1000).toISOString()}&to=${to}&points=12`,
    );
    expect(body.range).toBe('custom');
    expect(body.step_s).toBe(5);
    const series = body.series as Record<string, (number | null)[]>;
    // Sweeps at +5 … +30 s up, +35 … +60 s down; points cover [from + 5i, from + 5i + 5).
    expect(series.up).toEqual([null, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
    expect(series.cpu?.slice(7)).toEqual([null, null, null, null, null]);
    expect(series.cpu?.[6]).toBeCloseTo(0.25, 4);
  });

  it('answers 404 for a name the board never had and 422 for bad windows', async () => {
    expect((await get('/api/machines/nope/history')).status).toBe(404);
    expect((await get('/api/machines/nope/events')).status).toBe(404);
    expect((await get('/api/machines/nope/history')).body).toEqual({
      detail: 'No machine named nope',
    });
    const bad = await get('/api/machines/web1/history?range=2h&points=5');
    expect(bad.status).toBe(422);
    expect((bad.body.detail as { loc: string[] }[]).map((d) => d.loc)).toEqual([
      ['query', 'range'],
      ['query', 'points'],
    ]);
    const backwards = await get('/api/machines/web1/history?from=2000&to=1000');
    expect(backwards.status).toBe(422);
    expect((await get('/api/machines/web1/history?from=yesterday')).status).toBe(422);
  });

  it('lists state changes most recent first with how long the previous state lasted', async () => {
    await sweeps(6, true);
    await sweeps(2, false);
    await sweeps(1, true);
    const { status, body } = await get('/api/machines/web1/events?limit=10');
    expect(status).toBe(200);
    const events = body.events as Record<string, unknown>[];
    expect(events.map((e) => [e.state, e.previous, e.duration_s])).toEqual([
      ['up', 'down', 10],
      ['down', 'up', 30],
      ['up', null, null],
    ]);
    expect(events[1]?.reason).toBe('timed out');
    expect(events[0]?.at).toBe(new Date(clock.now()).toISOString());
    expect(((await get('/api/machines/web1/events?limit=1')).body.events as unknown[]).length).toBe(
      1,
    );
  });

  it('computes uptime exactly from state changes, counted from first seen', async () => {
    await sweeps(1, true);
    clock.advance(30 * 60_000 - 5000);
    await sweeps(1, false); // 30 min up, then down
    clock.advance(10 * 60_000 - 5000);
    await sweeps(1, false); // 10 min down
    const { body } = await get('/api/uptime');
    const row = (body.machines as Record<string, unknown>[]).find((m) => m.name === 'web1');
    expect(row?.['24h']).toBeCloseTo(30 / 40, 6);
    expect(row?.['30d']).toBeCloseTo(30 / 40, 6);
  });

  it('forgets an announced machine: its history answers 404 at once, and after a restart', async () => {
    const report = {
      name: 'lab1',
      location: 'http://lab1:8701',
      cpu_use: 0.5,
      interval_s: 5,
    };
    const posted = await b.app.inject({
      method: 'POST',
      url: '/api/report',
      headers: { authorization: `Bearer ${REGISTRATION}` },
      payload: report,
    });
    expect(posted.statusCode).toBe(200);
    await sweeps(2, true);
    expect((await get('/api/machines/lab1/history?range=1h')).status).toBe(200);
    expect(((await get('/api/machines/lab1/events')).body.events as unknown[]).length).toBe(1);
    const gone = await b.app.inject({ method: 'DELETE', url: '/api/machines/lab1', headers: auth });
    expect(gone.statusCode).toBe(200);
    expect((await get('/api/machines/lab1/history')).status).toBe(404);
    expect((await get('/api/machines/lab1/events')).status).toBe(404);
    const names = (await get('/api/uptime')).body.machines as { name: string }[];
    expect(names.map((m) => m.name)).toEqual(['web1']);
    await sweeps(1, true);
    await b.close();
    b = await build();
    expect((await get('/api/machines/lab1/history')).status).toBe(404);
    expect((await get('/api/machines/web1/events')).status).toBe(200);
  });

  it('keeps history across a restart, and with history: false answers 503 while the live view goes on', async () => {
    await sweeps(3, true);
    await b.close();
    b = await build();
    const { body } = await get('/api/machines/web1/history?range=1h&points=60');
    expect((body.series as { cpu: (number | null)[] }).cpu.at(-1)).toBeCloseTo(0.25, 4);
    await b.close();
    b = await build({ history: false });
    expect((await get('/api/machines/web1/history')).status).toBe(503);
    expect((await get('/api/board')).status).toBe(200);
  });

  it('documents the three endpoints in the OpenAPI document', async () => {
    const r = await b.app.inject({ method: 'GET', url: '/api/openapi.json', headers: auth });
    const paths = Object.keys((r.json() as { paths: Record<string, unknown> }).paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/machines/{name}/history',
        '/api/machines/{name}/events',
        '/api/uptime',
      ]),
    );
  });
});
