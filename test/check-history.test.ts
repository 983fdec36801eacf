import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, postgresBinDir, startPostgres } from '../harness/postgres.js';
import { checkSeries } from '../src/board/history/check-history.js';
import { TOKEN } from './helpers/board-kit.js';
import { scopedBoard } from './helpers/scoped-board.js';
import { type TempDir, tempDir } from './helpers/tmp.js';

const CHECKS = [
  {
    name: 'api',
    type: 'http',
    target: 'http://api.example/',
    runners: { selector: 'env' },
    labels: { env: 'prod' },
  },
  {
    name: 'devapi',
    type: 'http',
    target: 'http://dev.example/',
    runners: { selector: 'env' },
    labels: { env: 'dev' },
  },
];
const PROD = [{ role: 'viewer' as const, selector: 'env=prod' }];

type Engine = 'sqlite' | 'postgres';
const engines: Engine[] = postgresBinDir() === null ? ['sqlite'] : ['sqlite', 'postgres'];

describe.each(engines)('a check history on %s (in-process board, real HTTP)', (engine) => {
  let pg: PgServer | null = null;
  let store: Record<string, unknown> = {};
  let dir: TempDir;

  beforeAll(async () => {
    dir = tempDir();
    if (engine === 'postgres') {
      pg = await startPostgres();
      store = { store: await pg.createDatabase('checkhistory') };
    }
  }, 60_000);
  afterAll(() => {
    pg?.destroy();
    dir.cleanup();
  });

  it('records each result once per runner, answers points and uptime per scope, and keeps them across a restart', async () => {
    const s = await scopedBoard(dir, { checks: CHECKS, ...store });
    const start = s.clock.now();
    const at = (ms: number) => new Date(start + ms).toISOString();
    /** web1 (prod) sees the check good, web2 (dev) sees it fail; one poll of both. */
    const poll = async (when: number, ms: number) => {
      const result = (ok: boolean) => ({
        name: 'api',
        ok,
        ms: ok ? ms : 0,
        detail: ok ? '' : 'connection refused',
        at: at(when),
      });
      s.client.overviews.set('http://127.0.0.1:1', {
        ok: true,
        overview: { cpu_use: 0.1, checks: [result(true)] },
        latencyMs: 5,
      });
      s.client.overviews.set('http://127.0.0.1:2', {
        ok: true,
        overview: { cpu_use: 0.1, checks: [result(false)] },
        latencyMs: 5,
      });
      s.clock.advance(5000);
      await s.b.board.sweep();
      await s.b.history?.checks.settled();
    };
    await poll(1000, 20);
    await poll(1000, 20); // the same overview again: the same results, not recorded twice
    await poll(6000, 40);
    s.clock.advance(60_000);
    await s.b.history?.checks.settled();

    const get = async (path: string, auth = `Bearer ${TOKEN}`) => {
      const r = await fetch(`${s.url}${path}`, { headers: { authorization: auth } });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    const whole = await get('/api/checks/api/history?range=1h');
    expect(whole.status).toBe(200);
    const body = whole.body as {
      check: string;
      range: string;
      from: number;
      to: number;
      runners: { runner: string; points: { t: number; ok: number; ms: number | null }[] }[];
      uptime: number | null;
    };
    expect(body.check).toBe('api');
    expect(body.range).toBe('1h');
    expect(body.to - body.from).toBe(3600);
    expect(body.runners.map((r) => r.runner)).toEqual(['web1', 'web2']);
    const [web1, web2] = body.runners;
    expect(web1?.points.every((p) => p.ok === 1)).toBe(true);
    const good = web1?.points.flatMap((p) => (p.ms === null ? [] : [p.ms])) ?? [];
    expect(good.length).toBeGreaterThan(0);
    for (const ms of good) expect(ms).toBeGreaterThanOrEqual(20);
    expect(web2?.points.every((p) => p.ok === 0 && p.ms === null)).toBe(true);
    // web1 saw it up the whole time, web2 down: the mean of the two.
    expect(body.uptime).toBeCloseTo(0.5, 5);
    // Two results of web1, not three: the repeated overview was taken once.
    const raw = await s.b.history?.store.samples(checkSeries('api', 'web1'), 'raw', 0, 2 ** 31);
    expect(raw?.map((r) => r.avg.latency_ms)).toEqual([20, 40]);

    // A prod-scoped token: the prod check with the prod machine's runner; the dev check is not there.
    const prod = `Bearer ${await s.token('prod', PROD)}`;
    const scoped = await get('/api/checks/api/history?range=24h', prod);
    expect(scoped.status).toBe(200);
    const runners = (scoped.body.runners as { runner: string }[]).map((r) => r.runner);
    expect(runners).toEqual(['web1']);
    const hidden = await get('/api/checks/devapi/history', prod);
    expect(hidden).toEqual({
      status: 404,
      body: { detail: "No check named 'devapi' on this board" },
    });
    expect((await get('/api/checks/nosuch/history')).body).toEqual({
      detail: "No check named 'nosuch' on this board",
    });
    expect((await get('/api/checks/api/history?range=90d')).status).toBe(422);

    // The check's series are no machines: not in /api/uptime, not a machine's history.
    const uptime = (await get('/api/uptime')).body.machines as { name: string }[];
    expect(uptime.map((m) => m.name).sort()).toEqual(['db1', 'web1', 'web2']);
    const asMachine = await get(`/api/machines/${encodeURIComponent('check:api/web1')}/history`);
    expect([404, 422]).toContain(asMachine.status);
    const metrics = await fetch(`${s.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(await metrics.text()).not.toContain('check:');
    await s.b.close();

    // Read back from the store by a new board (the series are found in the store).
    const again = await scopedBoard(dir, { checks: CHECKS, ...store });
    again.clock.advance(s.clock.now() - again.clock.now());
    const r = await fetch(`${again.url}/api/checks/api/history?range=1h`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const kept = (await r.json()) as { runners: { runner: string }[]; uptime: number };
    expect(kept.runners.map((x) => x.runner)).toEqual(['web1', 'web2']);
    expect(kept.uptime).toBeCloseTo(0.5, 2);
    await again.b.close();
  }, 60_000);
});
