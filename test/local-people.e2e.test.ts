import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, runToExit, startProgram } from '../harness/processes.js';
import { closedPort, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'local-people-board-token-0123456789';
const PASSWORD = 'correct horse battery staple';

/** The secret in a link (after #signup=). */
const secretOf = (link: string) => link.slice(link.indexOf('#signup=') + '#signup='.length);

describe('local people: the people API, one-time links, passwords, the users command (SQLite)', () => {
  const dir = tempDir('panoptes-local-people-');
  let board: RunningProgram;
  let configDir: string;
  let base: string;
  let address = 0;
  /** A new client address for each caller (the board believes X-Forwarded-For from loopback). */
  const nextAddress = () => {
    address += 1;
    return `198.51.100.${address}`;
  };

  beforeAll(async () => {
    const port = await closedPort();
    configDir = writeBoardConfig(dir, 'board', {
      board_token: TOKEN,
      port,
      trusted_proxies: ['127.0.0.1/32'],
    });
    board = await startProgram('board', ['--config', configDir, '--port', String(port)]);
    base = board.url;
  });

  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  const call = async (
    path: string,
    init: {
      method?: string;
      body?: unknown;
      token?: string | null;
      cookie?: string;
      from?: string;
    } = {},
  ) => {
    const headers: Record<string, string> = { 'x-forwarded-for': init.from ?? '203.0.113.1' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.token !== null) headers.authorization = `Bearer ${init.token ?? TOKEN}`;
    if (init.cookie !== undefined) {
      headers.cookie = init.cookie;
      delete headers.authorization;
    }
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await res.text();
    const body = text === '' ? null : (JSON.parse(text) as Record<string, unknown>);
    return { status: res.status, body, headers: res.headers };
  };
  const cookieOf = (setCookie: string | null) => (setCookie ?? '').split(';')[0] ?? '';
  const add = async (name: string, bindings: unknown[] = [{ role: 'viewer', selector: null }]) => {
    const r = await call('/api/people', { body: { name, bindings } });
    expect(r.status).toBe(201);
    return r.body as { name: string; link: string; link_expires_at: string };
  };
  const signUp = async (name: string) => {
    const { link } = await add(name);
    const r = await call('/auth/signup/password', {
      body: { link, password: PASSWORD },
      token: null,
      from: nextAddress(),
    });
    expect(r.status).toBe(200);
    return cookieOf(r.headers.get('set-cookie'));
  };

  it('adds a person with a link; GET /api/people lists them without a secret; journaled', async () => {
    const made = await add('ada', [{ role: 'operator', selector: 'env=prod' }]);
    expect(made.link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#signup=[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(made.link_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const list = await call('/api/people');
    expect(list.body?.people).toContainEqual(
      expect.objectContaining({
        name: 'ada',
        source: 'local',
        bindings: [{ role: 'operator', selector: 'env=prod' }],
        signed_in_at: null,
        passkeys: 0,
        password: false,
      }),
    );
    expect(JSON.stringify(list.body)).not.toContain(secretOf(made.link));
    const journal = await call('/api/journal?limit=50');
    const entries = JSON.stringify(journal.body);
    expect(entries).toContain('person_added');
    expect(entries).not.toContain(secretOf(made.link));
    // The same name twice; a bad selector names its position; a bad name.
    expect((await call('/api/people', { body: { name: 'ada', bindings: [] } })).status).toBe(409);
    const bad = await call('/api/people', {
      body: { name: 'bob', bindings: [{ role: 'viewer', selector: 'env in (' }] },
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('position');
    expect((await call('/api/people', { body: { name: '-x', bindings: [] } })).status).toBe(422);
  });

  it('a link sets a password once; then the person signs in with it, and not with another', async () => {
    const { link } = await add('grace');
    const from = nextAddress();
    const info = await call('/auth/signup', { body: { link }, token: null, from });
    expect(info.status).toBe(200);
    expect(info.body?.name).toBe('grace');
    const short = await call('/auth/signup/password', {
      body: { link, password: 'short' },
      token: null,
      from,
    });
    expect(short.status).toBe(400);
    const set = await call('/auth/signup/password', {
      body: { link, password: PASSWORD },
      token: null,
      from,
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ name: 'grace' });
    const cookie = cookieOf(set.headers.get('set-cookie'));
    expect(cookie).toMatch(/^panoptes=/);
    const me = await call('/api/me', { cookie });
    expect(me.body).toMatchObject({ name: 'grace', via: 'password' });
    // Used once: the link is gone.
    const again = await call('/auth/signup/password', {
      body: { link, password: PASSWORD },
      token: null,
      from,
    });
    expect(again.status).toBe(404);
    expect((await call('/auth/signup', { body: { link }, token: null, from })).status).toBe(404);

    const good = await call('/auth/password', {
      body: { name: 'grace', password: PASSWORD },
      token: null,
      from: nextAddress(),
    });
    expect(good.status).toBe(200);
    expect(
      (await call('/api/me', { cookie: cookieOf(good.headers.get('set-cookie')) })).body,
    ).toMatchObject({
      name: 'grace',
      via: 'password',
    });
    const wrong = await call('/auth/password', {
      body: { name: 'grace', password: `${PASSWORD}!` },
      token: null,
      from: nextAddress(),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ detail: 'Wrong name or password' });
    const people = (await call('/api/people')).body?.people as {
      name: string;
      password: boolean;
    }[];
    expect(people.find((p) => p.name === 'grace')?.password).toBe(true);
  });

  it('a new link replaces the old one', async () => {
    const first = await add('linus');
    const second = await call('/api/people/linus/link', { body: {} });
    expect(second.status).toBe(200);
    const from = nextAddress();
    expect(
      (await call('/auth/signup', { body: { link: first.link }, token: null, from })).status,
    ).toBe(404);
    expect(
      (await call('/auth/signup', { body: { link: second.body?.link }, token: null, from })).status,
    ).toBe(200);
    expect((await call('/api/people/nobody/link', { body: {} })).status).toBe(404);
  });

  it('session fixation: a cookie sent before sign-in is not the one after, and opens nothing', async () => {
    await signUp('fixed');
    const planted = 'panoptes=plantedByAnAttacker0123456789abcdef';
    const r = await call('/auth/password', {
      body: { name: 'fixed', password: PASSWORD },
      token: null,
      cookie: planted,
      from: nextAddress(),
    });
    expect(r.status).toBe(200);
    const given = cookieOf(r.headers.get('set-cookie'));
    expect(given).not.toBe(planted);
    expect((await call('/api/me', { cookie: given })).status).toBe(200);
    expect((await call('/api/me', { cookie: planted })).status).toBe(401);
  });

  it('a sign-in from another site (login CSRF) is refused', async () => {
    await signUp('csrf');
    const res = await fetch(`${base}/auth/password`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: 'https://evil.example',
        'x-forwarded-for': nextAddress(),
      },
      body: JSON.stringify({ name: 'csrf', password: PASSWORD }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
    const own = await fetch(`${base}/auth/password`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: base,
        'x-forwarded-for': nextAddress(),
      },
      body: JSON.stringify({ name: 'csrf', password: PASSWORD }),
    });
    expect(own.status).toBe(200);
  });

  it('no user enumeration: an unknown name and a wrong password answer alike, in like time', async () => {
    await signUp('known');
    const attempt = async (name: string) => {
      const started = performance.now();
      const r = await call('/auth/password', {
        body: { name, password: 'not the password at all' },
        token: null,
        from: nextAddress(),
      });
      return { ms: performance.now() - started, status: r.status, body: r.body };
    };
    await attempt('warm-up'); // the first argon2 of the process pays for its memory
    const known = [];
    const unknown = [];
    // Four of each: the sign-in limit allows no more failures of one name.
    for (let i = 0; i < 4; i += 1) {
      known.push(await attempt('known'));
      unknown.push(await attempt(`nobody${i}`));
    }
    for (const a of [...known, ...unknown]) {
      expect(a.status).toBe(401);
      expect(a.body).toEqual({ detail: 'Wrong name or password' });
    }
    // The fastest of each: a busy machine only ever adds time, so the minimum is the work done.
    const k = Math.min(...known.map((a) => a.ms));
    const u = Math.min(...unknown.map((a) => a.ms));
    // Both check an argon2id hash: an unknown name is not answered at once (well under half).
    expect(u).toBeGreaterThan(k * 0.5);
    expect(k).toBeGreaterThan(u * 0.5);
  });

  it('rate limits: 5 failures a minute per name (from any address), 20 per address (any names)', async () => {
    await signUp('target');
    for (let i = 0; i < 5; i += 1) {
      const r = await call('/auth/password', {
        body: { name: 'target', password: 'wrong wrong wrong' },
        token: null,
        from: nextAddress(),
      });
      expect(r.status).toBe(401);
    }
    // The right password from a fresh address is held back too: the name is blocked.
    const held = await call('/auth/password', {
      body: { name: 'target', password: PASSWORD },
      token: null,
      from: nextAddress(),
    });
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);

    const spray = nextAddress();
    for (let i = 0; i < 20; i += 1) {
      const r = await call('/auth/password', {
        body: { name: `spray${i}`, password: 'wrong wrong wrong' },
        token: null,
        from: spray,
      });
      expect(r.status).toBe(401);
    }
    const blocked = await call('/auth/password', {
      body: { name: 'known', password: PASSWORD },
      token: null,
      from: spray,
    });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).not.toBeNull();
    const journal = JSON.stringify((await call('/api/journal?limit=200')).body);
    expect(journal).toContain('refused');
    expect(journal).not.toContain('wrong wrong wrong');
  });

  it('changing bindings ends the sessions; removing a person ends their sessions', async () => {
    const cookie = await signUp('changing');
    expect((await call('/api/me', { cookie })).status).toBe(200);
    const put = await call('/api/people/changing', {
      method: 'PUT',
      body: { bindings: [{ role: 'operator' }] },
    });
    expect(put.status).toBe(200);
    expect(put.body?.bindings).toEqual([{ role: 'operator', selector: null }]);
    await expect.poll(async () => (await call('/api/me', { cookie })).status).toBe(401);

    const other = await signUp('leaving');
    expect((await call('/api/me', { cookie: other })).status).toBe(200);
    const gone = await call('/api/people/leaving', { method: 'DELETE' });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ name: 'leaving' });
    await expect.poll(async () => (await call('/api/me', { cookie: other })).status).toBe(401);
    expect((await call('/api/people/leaving', { method: 'DELETE' })).status).toBe(404);
    const signIn = await call('/auth/password', {
      body: { name: 'leaving', password: PASSWORD },
      token: null,
      from: nextAddress(),
    });
    expect(signIn.status).toBe(401);
  });

  it('an admin gives no more than they hold; a viewer may not manage people', async () => {
    const { link } = await add('scoped', [{ role: 'admin', selector: 'env=prod' }]);
    const set = await call('/auth/signup/password', {
      body: { link, password: PASSWORD },
      token: null,
      from: nextAddress(),
    });
    const cookie = cookieOf(set.headers.get('set-cookie'));
    const headers = { cookie, origin: base };
    const wide = await fetch(`${base}/api/people`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'wider', bindings: [{ role: 'viewer' }] }),
    });
    expect(wide.status).toBe(403);
    const narrow = await fetch(`${base}/api/people`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'narrower',
        bindings: [{ role: 'viewer', selector: 'env=prod,site=fra' }],
      }),
    });
    expect(narrow.status).toBe(201);
    const viewer = await signUp('just-a-viewer');
    expect((await call('/api/people', { cookie: viewer })).status).toBe(403);
  });

  it('the users command makes a link that works on the running board', async () => {
    const added = await runToExit('board', [
      'users',
      'add',
      'cli-person',
      '--role',
      'operator',
      '--selector',
      'env=prod',
      '--config',
      configDir,
    ]);
    expect(added.code).toBe(0);
    const link = /(http\S+#signup=\S+)/.exec(added.output)?.[1] ?? '';
    expect(link).toMatch(/^http:\/\/localhost:\d+\/#signup=/);
    const set = await call('/auth/signup/password', {
      body: { link, password: PASSWORD },
      token: null,
      from: nextAddress(),
    });
    expect(set.status).toBe(200);
    const listed = await runToExit('board', ['users', 'list', '--config', configDir]);
    expect(listed.code).toBe(0);
    expect(listed.output).toMatch(/cli-person\s+local\s+operator\(env=prod\)\s+password/);
    const relinked = await runToExit('board', [
      'users',
      'link',
      'cli-person',
      '--config',
      configDir,
    ]);
    expect(relinked.output).toContain('#signup=');
    const bad = await runToExit('board', [
      'users',
      'add',
      'x',
      '--role',
      'king',
      '--config',
      configDir,
    ]);
    expect(bad.code).toBe(2);
    const removed = await runToExit('board', [
      'users',
      'remove',
      'cli-person',
      '--config',
      configDir,
    ]);
    expect(removed.code).toBe(0);
    expect((await call('/api/people')).body?.people).not.toContainEqual(
      expect.objectContaining({ name: 'cli-person' }),
    );
    expect(JSON.stringify((await call('/api/journal?limit=200')).body)).toContain('person_removed');
  });
});
