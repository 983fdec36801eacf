import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN } from './helpers/board-kit.js';
import { type ScopedBoard, scopedBoard } from './helpers/scoped-board.js';
import { tempDir } from './helpers/tmp.js';

const PROD = [{ role: 'viewer' as const, selector: 'env=prod' }];
const EVERY = [{ role: 'viewer' as const, selector: null }];

interface Answer {
  status: number;
  etag: string | null;
  text: string;
  json: unknown;
}

describe('a scope hides what is out of it (an in-process board on 127.0.0.1, scoped sessions)', () => {
  const dir = tempDir('panoptes-scope-');
  let s: ScopedBoard;
  let prod: string;
  let everyone: string;

  beforeAll(async () => {
    s = await scopedBoard(dir);
    await s.sweep();
    await s.sweep(0.5);
    prod = await s.session('pat', PROD);
    everyone = await s.session('una', EVERY);
    const journal = s.b.board.journal;
    const who = { word: 'board' as const, actor: { kind: 'board_token' as const, name: 'board' } };
    await journal.record({
      who,
      op: 'do',
      target: 'web2/nginx/stop',
      outcome: 'failed',
      status: 502,
      detail: '',
    });
    await journal.record({
      who,
      op: 'do',
      target: 'web1/nginx/stop',
      outcome: 'failed',
      status: 502,
      detail: '',
    });
    await journal.record({
      who,
      op: 'notify',
      target: 'ops',
      outcome: 'delivered',
      status: 200,
      detail: '',
    });
    await s.b.access.note(who, 'pat', 'signed_in', null, 'password');
  });
  afterAll(async () => {
    await s?.b.close();
    dir.cleanup();
  });

  const get = async (path: string, as: { cookie?: string; token?: string }, etag?: string) => {
    const headers: Record<string, string> = {};
    if (as.cookie !== undefined) headers.cookie = as.cookie;
    if (as.token !== undefined) headers.authorization = `Bearer ${as.token}`;
    if (etag !== undefined) headers['if-none-match'] = etag;
    const r = await fetch(`${s.url}${path}`, { headers });
    const text = await r.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: r.status, etag: r.headers.get('etag'), text, json } satisfies Answer;
  };
  const names = (a: Answer) =>
    (a.json as { machines: { name: string }[] }).machines.map((m) => m.name);

  it('GET /api/board holds only machines in scope, under an ETag of its own', async () => {
    const whole = await get('/api/board', { token: TOKEN });
    const scoped = await get('/api/board', { cookie: prod });
    const unscoped = await get('/api/board', { cookie: everyone });
    expect(names(whole)).toEqual(['db1', 'web1', 'web2']);
    expect(names(scoped)).toEqual(['db1', 'web1']);
    expect(scoped.text).not.toContain('web2');
    // An unscoped viewer gets the board token's cached bytes; a scoped one never gets them.
    expect(unscoped.etag).toBe(whole.etag);
    expect(unscoped.text).toBe(whole.text);
    expect(scoped.etag).not.toBe(whole.etag);
    expect((await get('/api/board', { cookie: prod }, whole.etag ?? '')).status).toBe(200);
    expect((await get('/api/board', { cookie: prod }, scoped.etag ?? '')).status).toBe(304);
    expect((await get('/api/board', { token: TOKEN }, scoped.etag ?? '')).status).toBe(200);
    // A selector narrows within the scope, never past it.
    expect(names(await get('/api/board?selector=env%3Ddev', { cookie: prod }))).toEqual([]);
    const dev = await get('/api/board?selector=env%3Ddev', { token: TOKEN });
    expect(names(dev)).toEqual(['web2']);
    const prodSel = await get('/api/board?selector=env%3Dprod', { cookie: prod });
    expect(names(prodSel)).toEqual(['db1', 'web1']);
    expect(prodSel.etag).not.toBe(
      (await get('/api/board?selector=env%3Dprod', { token: TOKEN })).etag,
    );
  });

  it('GET /api/journal: machines in scope only; fleet entries to unscoped viewers, auth to unscoped admins', async () => {
    const targets = async (as: { cookie?: string; token?: string }) =>
      (
        (await get('/api/journal', as)).json as { entries: { op: string; target: string }[] }
      ).entries.map((e) => `${e.op} ${e.target}`);
    expect(await targets({ cookie: prod })).toEqual(['do web1/nginx/stop']);
    expect(await targets({ cookie: everyone })).toEqual([
      'notify ops',
      'do web1/nginx/stop',
      'do web2/nginx/stop',
    ]);
    expect(await targets({ token: TOKEN })).toEqual([
      'auth pat',
      'notify ops',
      'do web1/nginx/stop',
      'do web2/nginx/stop',
    ]);
  });

  it('GET /api/sessions, /api/uptime, /metrics and /api/groups count and list only machines in scope', async () => {
    const sessions = (await get('/api/sessions', { cookie: prod })).json as {
      sessions: { machine: string }[];
      total: number;
    };
    expect(sessions.sessions.map((x) => x.machine).sort()).toEqual(['db1', 'web1']);
    expect(sessions.total).toBe(2);
    const all = (await get('/api/sessions', { token: TOKEN })).json as { total: number };
    expect(all.total).toBe(3);
    const uptime = (await get('/api/uptime', { cookie: prod })).json as {
      machines: { name: string }[];
    };
    expect(uptime.machines.map((m) => m.name).sort()).toEqual(['db1', 'web1']);
    const metrics = await get('/metrics', { cookie: prod });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('name="web1"');
    expect(metrics.text).not.toContain('web2');
    // Counts of the whole fleet are not a scoped viewer's either.
    expect(metrics.text).not.toMatch(/^panoptes_machines[ {]/m);
    expect((await get('/metrics', { token: TOKEN })).text).toMatch(/^panoptes_machines[ {]/m);
    expect((await get('/metrics', { token: TOKEN })).text).toContain('name="web2"');
    const groups = (await get('/api/groups', { cookie: prod })).json as {
      groups: { machines: number }[];
    };
    expect(groups.groups[0]?.machines).toBe(2);
    expect(
      ((await get('/api/groups', { token: TOKEN })).json as typeof groups).groups[0]?.machines,
    ).toBe(3);
  });

  it('GET /api/silences shows a scoped actor only silences of machines in its scope', async () => {
    const start = async (selector: string) =>
      fetch(`${s.url}/api/silences`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ selector, minutes: 30, reason: `quiet ${selector}` }),
      });
    expect((await start('env=dev')).status).toBe(201);
    expect((await start('env=prod')).status).toBe(201);
    const shown = async (as: { cookie?: string; token?: string }) =>
      ((await get('/api/silences', as)).json as { silences: { selector: string }[] }).silences
        .map((x) => x.selector)
        .sort();
    expect(await shown({ cookie: prod })).toEqual(['env=prod']);
    expect(await shown({ token: TOKEN })).toEqual(['env=dev', 'env=prod']);
  });
});
