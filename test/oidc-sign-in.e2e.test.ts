import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser } from '../harness/browser.js';
import { type RunningProgram, startBoard, startProgram } from '../harness/processes.js';
import { makeTestCa, type TestCa } from './helpers/certs.js';
import { closedPort, writeBoardConfig } from './helpers/fleet.js';
import { startOidcProvider, type TestProvider } from './helpers/oidc-provider.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'oidc-board-token-0123456789';
const SECRET = 'oidc-client-secret-never-shown-0123456789';

interface Entry {
  op: string;
  target: string;
  outcome: string;
  status: number | null;
  detail: string;
  actor: { kind: string; name: string };
}

describe('OIDC sign-in against a real oidc-provider process, driven by Chromium', () => {
  vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
  const dir = tempDir('panoptes-oidc-');
  let ca: TestCa;
  let provider: TestProvider | undefined;
  let providerPort: number;
  let tlsPort: number;
  let board: RunningProgram;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ca = makeTestCa(dir);
    providerPort = await closedPort();
    const boardPort = await closedPort();
    tlsPort = await closedPort();
    const configDir = writeBoardConfig(dir, 'board', {
      board_token: TOKEN,
      auth: {
        oidc: {
          issuer: `https://127.0.0.1:${providerPort}`,
          client_id: 'panoptes',
          client_secret: SECRET,
          scopes: ['openid', 'profile'],
          groups_claim: 'groups',
          ca: ca.caFile,
          roles: [
            { group: 'fra-ops', role: 'operator', selector: 'site=fra' },
            { group: 'admins', role: 'admin' },
          ],
        },
      },
    });
    [board, browser] = await Promise.all([
      startProgram('board', ['--config', configDir, '--port', String(boardPort)]),
      launchBrowser(),
    ]);
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await board?.stop();
    await provider?.stop();
    dir.cleanup();
  });

  const fresh = async (): Promise<{ context: BrowserContext; page: Page }> => {
    // Chromium need not trust the test CA: the board's own check of the provider is under test.
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return { context, page };
  };

  /** Goes to the login route, signs in at the provider's form as `user`, and consents. */
  const signIn = async (page: Page, user: string, back = '/?from=oidc', base = board.url) => {
    const started = performance.now();
    await page.goto(`${base}/auth/oidc/login?return=${encodeURIComponent(back)}`);
    for (let step = 0; step < 5 && !page.url().startsWith(base); step++) {
      const login = page.locator('input[name="login"]');
      if (await login.isVisible()) {
        await login.fill(user);
        await page.locator('input[name="password"]').fill('any password');
      }
      await Promise.all([page.waitForNavigation(), page.locator('button[type=submit]').click()]);
    }
    expect(page.url().startsWith(base)).toBe(true);
    // The round trip a person waits through (the provider's form and consent filled at once).
    console.log(
      `OIDC sign-in round trip in Chromium: ${Math.round(performance.now() - started)} ms`,
    );
  };

  const sessionCookie = async (context: BrowserContext) =>
    (await context.cookies(board.url)).find((c) => c.name === 'panoptes');

  const me = async (context: BrowserContext) => {
    const answer = await context.request.get(`${board.url}/api/me`);
    return { status: answer.status(), body: answer.ok() ? await answer.json() : null };
  };

  const journal = async (): Promise<Entry[]> => {
    const answer = await fetch(`${board.url}/api/journal?limit=200`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return ((await answer.json()) as { entries: Entry[] }).entries.filter((e) => e.op === 'auth');
  };

  it('answers 503 with a detail while the provider is down, and discovers it once it is up', async () => {
    const down = await fetch(`${board.url}/auth/oidc/login?return=/`, { redirect: 'manual' });
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({
      detail: 'The identity provider cannot be reached; try again later',
    });
    provider = await startOidcProvider(
      dir,
      ca,
      [
        {
          client_id: 'panoptes',
          client_secret: SECRET,
          redirect_uris: [`${board.url}/auth/oidc/callback`],
          post_logout_redirect_uris: [`${board.url}/`],
        },
        {
          client_id: 'panoptes-tls',
          client_secret: SECRET,
          redirect_uris: [`https://127.0.0.1:${tlsPort}/auth/oidc/callback`],
        },
      ],
      providerPort,
    );
    provider.setUsers({
      alice: { groups: ['fra-ops', 'unrelated'] },
      carol: { groups: ['nobody-maps-this'] },
      mallory: { groups: ['fra-ops'] },
    });
    const up = await fetch(`${board.url}/auth/oidc/login?return=/`, { redirect: 'manual' });
    expect(up.status).toBe(302);
    const location = new URL(up.headers.get('location') ?? '');
    expect(location.origin).toBe(provider.issuer);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(location.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(location.searchParams.get('redirect_uri')).toBe(`${board.url}/auth/oidc/callback`);
  });

  it('checks the provider certificate against auth.oidc.ca (without it, the provider is not believed)', async () => {
    const configDir = writeBoardConfig(dir, 'board-without-ca', {
      board_token: TOKEN,
      auth: {
        oidc: {
          issuer: provider?.issuer,
          client_id: 'panoptes',
          client_secret: SECRET,
          roles: [{ group: 'admins', role: 'admin' }],
        },
      },
    });
    const other = await startBoard(configDir);
    try {
      const answer = await fetch(`${other.url}/auth/oidc/login?return=/`, { redirect: 'manual' });
      expect(answer.status).toBe(503);
      expect(other.output.join('\n')).not.toContain(SECRET);
    } finally {
      await other.stop();
    }
  });

  it('signs a person in through the provider in Chromium with a NEW session and the mapped bindings', async () => {
    const { context, page } = await fresh();
    const codes: string[] = [];
    page.on('request', (r) => {
      const code = new URL(r.url()).searchParams.get('code');
      if (r.url().startsWith(`${board.url}/auth/oidc/callback`) && code !== null) codes.push(code);
    });
    // Session fixation: a cookie planted before sign-in (here a live session of someone else's,
    // as an attacker would plant their own) is never the one after.
    const other = await fresh();
    await signIn(other.page, 'mallory');
    const planted = (await sessionCookie(other.context))?.value ?? '';
    expect(planted).not.toBe('');
    await context.addCookies([{ name: 'panoptes', value: planted, url: board.url }]);
    expect((await me(context)).body).toMatchObject({ name: 'mallory' });
    await signIn(page, 'alice');
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/?from=oidc');
    const cookie = await sessionCookie(context);
    expect(cookie?.value).toBeDefined();
    expect(cookie?.value).not.toBe(planted);
    expect(cookie?.httpOnly).toBe(true);
    expect(await me(context)).toEqual({
      status: 200,
      body: { name: 'alice', via: 'oidc', bindings: [{ role: 'operator', selector: 'site=fra' }] },
    });
    const entries = await journal();
    expect(entries).toContainEqual(
      expect.objectContaining({
        target: 'alice',
        outcome: 'signed_in',
        actor: { kind: 'person', name: 'alice' },
      }),
    );
    // Neither the journal nor the board's log holds the code, the client secret or the session.
    expect(codes).toHaveLength(1);
    expect((await me(other.context)).body).toMatchObject({ name: 'mallory' });
    expect(board.output.join('\n')).toContain('/auth/oidc/callback?code=[redacted]');
    for (const text of [JSON.stringify(entries), board.output.join('\n')]) {
      for (const secret of [SECRET, cookie?.value ?? '-', codes[0] ?? '-'])
        expect(text).not.toContain(secret);
    }
    // Signing out ends the session and names the provider's end-session URL.
    const out = await context.request.post(`${board.url}/auth/logout`, {
      headers: { origin: board.url },
    });
    expect(out.status()).toBe(200);
    const body = (await out.json()) as { ok: boolean; logout_url?: string };
    const logout = new URL(body.logout_url ?? '');
    expect(`${logout.origin}${logout.pathname}`).toBe(`${provider?.issuer}/session/end`);
    expect(logout.searchParams.get('client_id')).toBe('panoptes');
    expect(logout.searchParams.get('post_logout_redirect_uri')).toBe(`${board.url}/`);
    expect((await me(context)).status).toBe(401);
    // The provider takes that URL: it asks, signs out, and sends the browser back to the board.
    await page.goto(logout.href);
    await Promise.all([
      page.waitForURL(`${board.url}/`),
      page.locator('button[name=logout]').click(),
    ]);
  });

  it('takes the groups again at the next sign-in', async () => {
    provider?.setUsers({ alice: { groups: ['admins'] } });
    const { context, page } = await fresh();
    await signIn(page, 'alice');
    expect((await me(context)).body).toEqual({
      name: 'alice',
      via: 'oidc',
      bindings: [{ role: 'admin', selector: null }],
    });
  });

  it('refuses a person none of whose groups maps to a role: the 403 page and no cookie', async () => {
    const { context, page } = await fresh();
    await signIn(page, 'carol');
    await expect
      .poll(() =>
        page
          .getByTestId('oidc-refused')
          .textContent()
          .catch(() => ''),
      )
      .toContain('none of their groups gives a role on this board');
    expect(await sessionCookie(context)).toBeUndefined();
    expect((await me(context)).status).toBe(401);
    expect(await journal()).toContainEqual(
      expect.objectContaining({ target: 'carol', outcome: 'refused', status: 403 }),
    );
  });

  // The journal's detail names the check that failed (the claim, never its value).
  const mischiefs: [string, Parameters<TestProvider['misbehave']>[0], RegExp][] = [
    ['a wrong aud', { claims: { aud: 'some-other-client' } }, /"aud"/],
    ['a wrong iss', { claims: { iss: 'https://evil.example' } }, /"iss"/],
    ['a wrong nonce', { claims: { nonce: 'not-the-nonce-the-board-sent' } }, /"nonce"/],
    ['an expired ID token', { expired: true }, /"exp"/],
  ];
  for (const [what, mischief, check] of mischiefs) {
    it(`refuses ${what} signed by the provider's real key: the 403 page, no session`, async () => {
      provider?.setUsers({ alice: { groups: ['admins'] } });
      provider?.misbehave(mischief);
      try {
        const before = (await journal()).length;
        const { context, page } = await fresh();
        await signIn(page, 'alice');
        await expect
          .poll(() =>
            page
              .getByTestId('oidc-refused')
              .textContent()
              .catch(() => ''),
          )
          .toContain('did not check out');
        expect(await sessionCookie(context)).toBeUndefined();
        expect((await me(context)).status).toBe(401);
        expect(provider?.program.output.join('\n')).toContain('mischief:');
        const entries = await journal();
        expect(entries.length).toBeGreaterThan(before);
        const refused = entries
          .slice(0, entries.length - before)
          .filter((e) => e.target === 'oidc' && e.outcome === 'refused' && e.status === 403);
        expect(refused).toHaveLength(1);
        expect(refused[0]?.detail).toMatch(check);
        expect(refused[0]?.detail).not.toContain('some-other-client');
        expect(refused[0]?.detail).not.toContain('not-the-nonce');
      } finally {
        provider?.misbehave(null);
      }
    });
  }

  it('refuses a callback whose state is not the one it sent (the pending sign-in is used up)', async () => {
    const login = await fetch(`${board.url}/auth/oidc/login?return=/`, { redirect: 'manual' });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const callback = (query: string) =>
      fetch(`${board.url}/auth/oidc/callback?${query}`, {
        redirect: 'manual',
        headers: { cookie },
      });
    const wrong = await callback(
      `code=abc&state=wrong&iss=${encodeURIComponent(provider?.issuer ?? '')}`,
    );
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('content-type')).toContain('text/html');
    expect(wrong.headers.get('set-cookie') ?? '').not.toMatch(/panoptes=[A-Za-z0-9_-]{20}/);
    const none = await fetch(`${board.url}/auth/oidc/callback?code=abc&state=x`, {
      redirect: 'manual',
    });
    expect(none.status).toBe(403);
  });

  it('sends a return path that is not on this board to / (no open redirect)', async () => {
    provider?.setUsers({ alice: { groups: ['admins'] } });
    for (const back of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const { context, page } = await fresh();
      await signIn(page, 'alice', back);
      expect(page.url()).toBe(`${board.url}/`);
      expect(await sessionCookie(context)).toBeDefined();
    }
  });

  it('on an HTTPS board, gives the __Host- cookies (Secure) and signs in all the same', async () => {
    provider?.setUsers({ alice: { groups: ['fra-ops'] } });
    const cert = ca.issue('board-tls');
    const configDir = writeBoardConfig(dir, 'board-tls', {
      board_token: TOKEN,
      tls: { cert: cert.cert, key: cert.key },
      auth: {
        oidc: {
          issuer: provider?.issuer,
          client_id: 'panoptes-tls',
          client_secret: SECRET,
          groups_claim: 'groups',
          ca: ca.caFile,
          roles: [{ group: 'fra-ops', role: 'viewer' }],
        },
      },
    });
    const tls = await startProgram('board', ['--config', configDir, '--port', String(tlsPort)]);
    try {
      expect(tls.url).toBe(`https://127.0.0.1:${tlsPort}`);
      const { context, page } = await fresh();
      await signIn(page, 'alice', '/', tls.url);
      // Cookies are not kept apart by port: the provider's own on 127.0.0.1 are left out.
      const cookies = (await context.cookies(tls.url)).filter((c) => c.name.includes('panoptes'));
      expect(cookies.map((c) => c.name)).toEqual(['__Host-panoptes']);
      expect(cookies[0]).toMatchObject({ secure: true, httpOnly: true, path: '/' });
      const answer = await context.request.get(`${tls.url}/api/me`);
      expect(await answer.json()).toEqual({
        name: 'alice',
        via: 'oidc',
        bindings: [{ role: 'viewer', selector: null }],
      });
    } finally {
      await tls.stop();
    }
  });
});
