import { readFileSync } from 'node:fs';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCa } from './helpers/certs.js';
import { type ScopedBoard, scopedBoard } from './helpers/scoped-board.js';
import { tempDir } from './helpers/tmp.js';

const VIEWER = [{ role: 'viewer' as const, selector: null }];

describe('session cookies on an HTTPS board (tls:, in-process on 127.0.0.1)', () => {
  const dir = tempDir('panoptes-cookie-tls-');
  let s: ScopedBoard;
  let dispatcher: Agent;

  beforeAll(async () => {
    const ca = makeTestCa(dir);
    s = await scopedBoard(dir, { tls: ca.issue('board') });
    dispatcher = new Agent({ connect: { ca: readFileSync(ca.caFile, 'utf8') } });
  });
  afterAll(async () => {
    await s?.b.close();
    await dispatcher?.close();
    dir.cleanup();
  });

  const me = async (cookie: string) =>
    (await fetch(`${s.url}/api/me`, { headers: { cookie }, dispatcher } as RequestInit)).status;

  it('takes only __Host-panoptes: the same secret planted as `panoptes` (over plain HTTP) is 401', async () => {
    expect(s.url).toMatch(/^https:/);
    const cookie = await s.session('hal', VIEWER);
    expect(cookie.startsWith('__Host-panoptes=')).toBe(true);
    const secret = cookie.slice('__Host-panoptes='.length);
    expect(await me(cookie)).toBe(200);
    expect(await me(`panoptes=${secret}`)).toBe(401);
  });

  it('sets its cookie __Host-, Secure, HttpOnly, SameSite=Lax, Path=/, with no Domain', async () => {
    const cookie = await s.session('ida', VIEWER);
    const r = await fetch(`${s.url}/auth/logout`, {
      method: 'POST',
      headers: { cookie, origin: s.url },
      dispatcher,
    } as RequestInit);
    expect(r.status).toBe(200);
    const set = r.headers.get('set-cookie') ?? '';
    const parts = set.split(';').map((p) => p.trim());
    expect(parts[0]?.startsWith('__Host-panoptes=')).toBe(true);
    expect(parts).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/']));
    expect(parts.some((p) => /^domain=/i.test(p))).toBe(false);
    expect(await me(cookie)).toBe(401);
  });
});

describe('session limits on the board clock (ManualClock: idle 2 h, absolute 12 h)', () => {
  const dir = tempDir('panoptes-session-limits-');
  let s: ScopedBoard;

  beforeAll(async () => {
    s = await scopedBoard(dir);
  });
  afterAll(async () => {
    await s?.b.close();
    dir.cleanup();
  });

  const me = async (cookie: string) =>
    (await fetch(`${s.url}/api/me`, { headers: { cookie } })).status;
  const minutes = (n: number) => s.clock.advance(n * 60_000);

  it('ends a session left idle for 2 h, and one in use for 12 h', async () => {
    const idle = await s.session('ike', VIEWER);
    const busy = await s.session('bea', VIEWER);
    expect(await me(idle)).toBe(200);
    minutes(119);
    expect(await me(idle)).toBe(200); // used again just before the idle limit: it holds
    minutes(119);
    expect(await me(idle)).toBe(200);
    minutes(121);
    expect(await me(idle)).toBe(401); // 2 h 1 min without a request
    // `busy` was last used at the start: also idle by now. A fresh one, used every hour:
    expect(await me(busy)).toBe(401);
    const used = await s.session('uma', VIEWER);
    for (let hour = 1; hour < 12; hour += 1) {
      minutes(60);
      expect(await me(used), `hour ${hour}`).toBe(200);
    }
    minutes(59);
    expect(await me(used)).toBe(200);
    minutes(2);
    expect(await me(used)).toBe(401); // 12 h 1 min after sign-in, however busy
  });
});
