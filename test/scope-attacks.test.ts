/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../harness/browser.js';
import { TOKEN } from './helpers/board-kit.js';
import { type ScopedBoard, scopedBoard } from './helpers/scoped-board.js';
import { tempDir } from './helpers/tmp.js';

const ADMIN = [{ role: 'admin' as const, selector: null }];
const PROD_ADMIN = [{ role: 'admin' as const, selector: 'env=prod' }];

interface Operation {
  method: string;
  path: string;
  params: string[];
  security: unknown;
}

/** Every operation of the board's OpenAPI document. */
async function operations(url: string): Promise<Operation[]> {
  const r = await fetch(`${url}/api/openapi.json`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const doc = (await r.json()) as {
    paths: Record<
      string,
      Record<string, { parameters?: { name: string; in: string }[]; security?: unknown }>
    >;
  };
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      out.push({ method: method.toUpperCase(), path, params, security: op.security });
    }
  }
  return out;
}

/** The path with `machine` in its machine parameter and harmless values in the others. */
function filled(op: Operation, machine: string): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, p: string) =>
    p === 'name' || p === 'machine' ? machine : p === 'action' ? 'restart' : 'x1',
  );
}

describe('attacks on scopes and sessions (an in-process board on 127.0.0.1)', () => {
  const dir = tempDir('panoptes-scope-attacks-');
  let s: ScopedBoard;

  beforeAll(async () => {
    s = await scopedBoard(dir);
    await s.sweep();
  });
  afterAll(async () => {
    await s?.b.close();
    dir.cleanup();
  });

  it('a machine out of scope and an unknown machine get the same status and body on every machine route', async () => {
    const token = await s.token('prod-admin', PROD_ADMIN);
    const cookie = await s.session('pam', PROD_ADMIN);
    const routes = (await operations(s.url)).filter(
      // A machine's name in the path (a person's, under /api/people, is not a machine).
      (op) =>
        (op.params.includes('name') || op.params.includes('machine')) &&
        !op.path.startsWith('/api/people'),
    );
    // The session wildcard route (a `/` in the session's name) is not in the document.
    routes.push({
      method: 'POST',
      path: '/api/sessions/{machine}/a%2Fb/ack',
      params: ['machine'],
      security: null,
    });
    expect(routes.map((r) => `${r.method} ${r.path}`)).toContain(
      'POST /api/do/{name}/{what}/{action}',
    );
    expect(routes.length).toBeGreaterThanOrEqual(10);
    const ask = async (op: Operation, machine: string, by: 'token' | 'cookie') => {
      const headers: Record<string, string> =
        by === 'token' ? { authorization: `Bearer ${token}` } : { cookie, origin: s.url };
      const hasBody = op.method === 'POST' || op.method === 'PUT';
      if (hasBody) headers['content-type'] = 'application/json';
      const r = await fetch(`${s.url}${filled(op, machine)}`, {
        method: op.method,
        headers,
        body: hasBody ? '{}' : null,
      });
      return `${r.status} ${(await r.text()).replaceAll(machine, '<m>')}`;
    };
    for (const op of routes) {
      for (const by of ['token', 'cookie'] as const) {
        const hidden = await ask(op, 'web2', by);
        const unknown = await ask(op, 'nosuch9', by);
        expect(hidden, `${op.method} ${op.path} (${by})`).toBe(unknown);
        // Enrolling (a new key for a name) is for unscoped admins: 403 whatever the name.
        const status = op.path.endsWith('/enroll') ? '403 ' : '404 ';
        expect(hidden.startsWith(status), `${op.method} ${op.path}: ${hidden}`).toBe(true);
      }
    }
  });

  it('refuses every state-changing request with a session cookie from another origin, or from none (CSRF)', async () => {
    const cookie = await s.session('ada', ADMIN);
    const changing = (await operations(s.url)).filter(
      (op) =>
        op.method !== 'GET' && op.method !== 'HEAD' && !isOpen(op) && op.path !== '/api/report',
    );
    if (!changing.some((op) => op.path === '/auth/logout'))
      changing.push({ method: 'POST', path: '/auth/logout', params: [], security: null });
    expect(changing.length).toBeGreaterThanOrEqual(15);
    const send = async (op: Operation, extra: Record<string, string>) => {
      const r = await fetch(`${s.url}${filled(op, 'nosuch9')}`, {
        method: op.method,
        headers: { cookie, 'content-type': 'application/json', ...extra },
        body: op.method === 'DELETE' ? null : '{}',
      });
      await r.arrayBuffer();
      return r.status;
    };
    // Sign-out last: it ends the session the other requests use.
    changing.sort((a, b) => Number(a.path === '/auth/logout') - Number(b.path === '/auth/logout'));
    for (const op of changing) {
      const what = `${op.method} ${op.path}`;
      expect(await send(op, { origin: 'http://evil.example' }), what).toBe(403);
      expect(await send(op, { 'sec-fetch-site': 'cross-site' }), what).toBe(403);
      expect(await send(op, {}), what).toBe(403);
      expect(await send(op, { origin: s.url }), what).not.toBe(403);
    }
  });

  it('takes agent labels for nothing: an agent reporting env=prod does not enter an env=prod scope', async () => {
    // web2's board label is env=dev; its agent says env=prod (and a new label the board lacks).
    s.client.overviews.set('http://127.0.0.1:2', {
      ok: true,
      overview: { cpu_use: 0.1, labels: { env: 'prod', team: 'core' } },
      latencyMs: 5,
    });
    s.clock.advance(5000);
    await s.b.board.sweep();
    const cookie = await s.session('pia', [{ role: 'viewer', selector: 'env=prod' }]);
    const teamCookie = await s.session('tia', [{ role: 'viewer', selector: 'team=core' }]);
    const names = async (c: string) => {
      const r = await fetch(`${s.url}/api/board`, { headers: { cookie: c } });
      return ((await r.json()) as { machines: { name: string }[] }).machines.map((m) => m.name);
    };
    expect(await names(cookie)).toEqual(['db1', 'web1']);
    expect(await names(teamCookie)).toEqual([]);
    const history = await fetch(`${s.url}/api/machines/web2/history`, { headers: { cookie } });
    expect(history.status).toBe(404);
  });
});

describe('cross-site WebSocket hijacking in Chromium', () => {
  const dir = tempDir('panoptes-scope-ws-');
  let s: ScopedBoard;
  let browser: Browser;
  let other: Server;
  let otherUrl: string;

  beforeAll(async () => {
    s = await scopedBoard(dir);
    await s.sweep();
    browser = await launchBrowser();
    // Another origin on the same host (another port): the Lax cookie goes with its requests.
    other = createServer((_req, res) => res.end('<!doctype html><title>elsewhere</title>'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    other?.close();
    await s?.b.close();
    dir.cleanup();
  });

  it('refuses /api/live opened by a page of another origin carrying the cookie; accepts the board’s own page', async () => {
    const cookie = await s.session('wes', ADMIN);
    const context = await browser.newContext();
    await context.addCookies([
      {
        name: 'panoptes',
        value: cookie.slice('panoptes='.length),
        url: s.url,
        httpOnly: true,
        sameSite: 'Lax',
      },
    ]);
    const page = await context.newPage();
    const live = `${s.url.replace('http', 'ws')}/api/live`;
    const tryLive = (url: string) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(url);
        socket.onmessage = (e) => resolve(`message ${String(e.data).slice(0, 20)}`);
        socket.onclose = (e) => resolve(`closed ${e.code}`);
      });
    await page.goto(`${otherUrl}/`);
    expect(await page.evaluate(tryLive, live)).toBe('closed 1006');
    await page.goto(`${s.url}/api/me`);
    expect(await page.evaluate(tryLive, live)).toMatch(/^message \{"type":"board"/);
    await context.close();
  }, 60_000);
});

/** An open route (the document names no security for it): a cookie opens nothing more of it. */
function isOpen(op: Operation): boolean {
  return op.security === undefined;
}
