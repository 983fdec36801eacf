import { describe, expect, it } from 'vitest';
import { SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, openBoard, recordRequests, useBrowserPage } from './helpers/browser.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** Sign-in, the token's handling in the browser, and the page's security headers. */
describe('UI: sign-in and the token', () => {
  const dir = tempDir('panoptes-ui-signin-');
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [{ name: 'web1', services: { backup: { start: ['true'], board: ['start'] } } }],
    },
  });

  it('/?token=… signs in, keeps the token for this tab, and takes it off the address and history', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(() => page.url()).toBe(`${ui.fleet.board.url}/`);
    expect(await page.evaluate(() => sessionStorage.getItem('panoptes.token'))).toBe(BOARD_TOKEN);
    expect(await page.evaluate(() => localStorage.getItem('panoptes.token'))).toBeNull();
    await expect.poll(() => page.locator('article[data-machine="web1"]').count()).toBe(1);
    // (Leaving while the socket is still opening would make Chromium log that it was cut short.)
    const live = () => expect.poll(() => page.locator('[data-status="live"]').count()).toBe(1);
    await live();

    // A reload keeps the tab signed in; another tab has to ask.
    await page.reload();
    await page.getByTestId('summary').waitFor();
    await live();
    const other = await ui.context.newPage();
    await other.goto(`${ui.fleet.board.url}/`);
    await expect.poll(() => other.getByLabel('Board token').count()).toBe(1);
    await other.close();

    // The history entry was replaced: walking all the way back never meets the token.
    const visited: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const back = await page.goBack();
      visited.push(page.url());
      if (back === null) break;
    }
    expect(visited.length).toBeGreaterThan(0);
    for (const url of visited) expect(url).not.toContain('token');
  });

  it('fetches carry the token in the Authorization header; only the WebSocket has ?token=', async () => {
    const { page } = ui;
    const requests = recordRequests(page);
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(() => page.locator('[data-status="live"]').count()).toBe(1);

    const api = requests.filter((r) => new URL(r.url).pathname.startsWith('/api/'));
    expect(api.map((r) => new URL(r.url).pathname)).toEqual(
      expect.arrayContaining(['/api/board', '/api/languages', '/api/journal']),
    );
    for (const r of api) {
      expect(r.auth, r.url).toBe(`Bearer ${BOARD_TOKEN}`);
      expect(r.url, r.url).not.toContain(BOARD_TOKEN);
    }
    // The page itself and its files are fetched without the token (it was removed first).
    const files = requests.filter((r) => !new URL(r.url).pathname.startsWith('/api/'));
    expect(files.length).toBeGreaterThan(1);
    for (const r of files.slice(1)) expect(r.url).not.toContain('token');
    expect(sockets).toHaveLength(1);
    const live = new URL(sockets[0] ?? '');
    expect(live.pathname).toBe('/api/live');
    expect(live.searchParams.get('token')).toBe(BOARD_TOKEN);
  });

  it('without a token a small form asks for it; a wrong token says so; the right one signs in', async () => {
    const { page } = ui;
    // The one wrong attempt is answered 401, which Chromium logs as a failed resource.
    ui.watched.allow(/Failed to load resource: the server responded with a status of 401/);
    await page.goto(`${ui.fleet.board.url}/`);
    const field = page.getByLabel('Board token');
    await field.waitFor();
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
    expect(await page.locator('article').count()).toBe(0);

    await field.fill('not-the-board-token-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('did not accept this token');
    expect(await page.evaluate(() => sessionStorage.getItem('panoptes.token'))).toBeNull();

    await page.getByLabel('Board token').fill(BOARD_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('summary').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);

    // Signing out forgets the token in this tab.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Board token').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('panoptes.token'))).toBeNull();
  });

  it("a wrong token's late 401 does not sign out the right token entered after it", async () => {
    const { page } = ui;
    ui.watched.allow(/Failed to load resource: the server responded with a status of 401/);
    const WRONG = 'not-the-board-token-either';
    // Every request made with the wrong token, except the view that refuses it, answers late:
    // after the right token has been entered.
    const late: string[] = [];
    await page.route('**/api/**', async (route) => {
      const request = route.request();
      const path = new URL(request.url()).pathname;
      if (request.headers().authorization === `Bearer ${WRONG}` && path !== '/api/board') {
        late.push(path);
        await new Promise((r) => setTimeout(r, 1500));
      }
      await route.continue().catch(() => undefined);
    });
    await page.goto(`${ui.fleet.board.url}/`);
    await page.getByLabel('Board token').fill(WRONG);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Board token').fill(BOARD_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('summary').waitFor();
    expect(late.length).toBeGreaterThan(0);
    // The late answers have come back (401) by now; the right token is still signed in.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await page.getByLabel('Board token').count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem('panoptes.token'))).toBe(BOARD_TOKEN);
    await page.getByTestId('summary').waitFor();
  });

  it('a wrong token in the address is refused and taken off the address too', async () => {
    const { page } = ui;
    ui.watched.allow(/Failed to load resource: the server responded with a status of 401/);
    await page.goto(`${ui.fleet.board.url}/?token=wrong-token-0123456789abc`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('did not accept this token');
    expect(page.url()).toBe(`${ui.fleet.board.url}/`);
  });

  it('is served with a strict CSP and security headers, and the CSP is enforced', async () => {
    const { page } = ui;
    const response = await page.goto(`${ui.fleet.board.url}/?token=${BOARD_TOKEN}`);
    const headers = response?.headers() ?? {};
    const csp = headers['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['cache-control']).toBe('no-cache');
    await page.getByTestId('summary').waitFor();
    // The live socket is same-origin: 'self' allows it (no violation was reported).
    await expect.poll(() => page.locator('[data-status="live"]').count()).toBe(1);
    const html = await (await fetch(`${ui.fleet.board.url}/`)).text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style="/);

    // An injected inline script and a request to another origin are blocked and reported.
    const ran = await page.evaluate(async () => {
      const s = document.createElement('script');
      try {
        s.text = 'window.injected = true';
        document.body.append(s);
      } catch {
        // Trusted Types refuse the assignment itself
      }
      const other = await fetch('http://127.0.0.2:9/').then(
        () => 'reached',
        () => 'blocked',
      );
      return { injected: (window as { injected?: boolean }).injected === true, other };
    });
    expect(ran).toEqual({ injected: false, other: 'blocked' });
    const violations = await page.evaluate(() => window.__cspViolations ?? []);
    expect(violations.some((v) => v.includes('connect-src'))).toBe(true);
    ui.watched.allow(/csp: |Content Security Policy|Trusted Type|TrustedScript/);

    // Hashed assets are cached for good; unknown paths are the JSON 404.
    const asset = await page.evaluate(
      () => document.querySelector<HTMLScriptElement>('script[src]')?.src ?? '',
    );
    const assetResponse = await fetch(asset);
    expect(assetResponse.headers.get('cache-control')).toContain('immutable');
    expect(assetResponse.headers.get('content-security-policy')).toBe(csp);
    const missing = await fetch(`${ui.fleet.board.url}/nothing-here`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Not Found' });
  });

  it('nothing the browser receives holds a machine key, operator token or registration token', async () => {
    const { page } = ui;
    const bodies: string[] = [];
    page.on('response', async (r) => {
      bodies.push(await r.text().catch(() => ''));
    });
    const frames: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(() => frames.length).toBeGreaterThan(0);
    bodies.push(await page.content());
    const all = [...bodies, ...frames].join('\n');
    expect(all).toContain('web1');
    for (const secret of SECRETS) expect(all).not.toContain(secret);
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, ...SECRETS], dirs: [dir.path] }));
});
