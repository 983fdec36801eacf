import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRETS } from './helpers/agent-fixtures.js';
import {
  BOARD_TOKEN,
  card,
  openBoard,
  recordRequests,
  reportBody,
  useBrowserPage,
} from './helpers/browser.js';
import { PeopleSessions } from './helpers/people-sessions.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** A page with no session asks GET /api/me, which answers 401: Chromium logs it. */
const NO_SESSION_YET = /Failed to load resource: the server responded with a status of 401/;

/**
 * The page for people (issue 60 item 8): signed in by a session cookie made with the board's
 * own Access in its store, they see their name, sign out, and only the controls their role
 * can use (decided by ui/src/auth/can.ts).
 */
describe('UI: people signed in by a session cookie', () => {
  const dir = tempDir('panoptes-ui-people-');
  const service = { ok: { start: ['true'], stop: ['true'], board: ['start', 'stop'] } };
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [
        { name: 'web1', services: service, labels: { env: 'prod' } },
        { name: 'db2', services: service, labels: { env: 'dev' } },
      ],
    },
    page: { viewport: { width: 1400, height: 1000 } },
  });
  let people: PeopleSessions;
  const secrets: string[] = [];

  beforeAll(async () => {
    people = new PeopleSessions(`${ui.fleet.configDir}/data`);
    await ui.fleet.report(reportBody('lab7', 'http://lab7.example/', []));
    await ui.fleet.bell('web1', 'build', 'attention', 'web1 waits');
    await ui.fleet.bell('db2', 'dump', 'attention', 'db2 waits');
  });
  afterAll(() => people?.close());

  const signIn = async (name: string, bindings: { role: string; selector: string | null }[]) => {
    const secret = await people.signInBrowser(
      ui.context,
      ui.fleet.board.url,
      name,
      bindings as never,
    );
    secrets.push(secret);
    return secret;
  };
  const open = async (page: Page) => {
    await page.goto(`${ui.fleet.board.url}/`);
    await page.getByTestId('summary').waitFor();
    await expect.poll(() => page.locator('[data-status="live"]').count()).toBe(1);
    await card(page, 'web1').locator('.service').first().waitFor();
    await card(page, 'db2').locator('.service').first().waitFor();
    await page.locator('.inbox-item').nth(1).waitFor();
  };
  /** The controls of one role, counted on the board page. */
  const controls = async (page: Page, machine: string) => ({
    actions: await card(page, machine).locator('button.action').count(),
    silence: await card(page, machine).getByRole('button', { name: 'Silence' }).count(),
    ack: await page.locator(`.inbox-item[data-machine="${machine}"] button.inbox-ack`).count(),
  });

  it('shows their name; sends no Authorization header and no token; Sign out ends the session', async () => {
    const { page } = ui;
    const secret = await signIn('alice', [{ role: 'viewer', selector: null }]);
    const requests = recordRequests(page);
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await open(page);
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe('alice');
    const api = requests.filter((r) => new URL(r.url).pathname.startsWith('/api/'));
    expect(api.length).toBeGreaterThan(2);
    for (const r of api) expect(r.auth, r.url).toBeNull();
    expect(sockets.map((s) => new URL(s).search)).toEqual(['']);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Board token').waitFor();
    expect(await page.getByRole('status').first().textContent()).toContain('Signed out');
    // The session is over on the board, not only in this page.
    const me = await fetch(`${ui.fleet.board.url}/api/me`, {
      headers: { cookie: `panoptes=${secret}` },
    });
    expect(me.status).toBe(401);
    // A reload stays on the sign-in page (the cookie is gone or refused).
    ui.watched.allow(NO_SESSION_YET);
    await page.reload();
    await page.getByLabel('Board token').waitFor();
  });

  it('a viewer sees no action, acknowledge, silence, label, forget or admin controls', async () => {
    const { page } = ui;
    await signIn('vera', [{ role: 'viewer', selector: null }]);
    await open(page);
    await card(page, 'lab7').waitFor();
    for (const m of ['web1', 'db2'])
      expect(await controls(page, m)).toEqual({ actions: 0, silence: 0, ack: 0 });
    expect(await page.locator('button.forget').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add a machine' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'People' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Tokens' }).count()).toBe(1);
    await page.goto(`${ui.fleet.board.url}/?machine=web1`);
    await page.getByTestId('machine-now').locator('.service').first().waitFor();
    await page.getByRole('heading', { name: 'Labels' }).waitFor();
    expect(await page.getByRole('button', { name: 'Edit board labels' }).count()).toBe(0);
    expect(await page.locator('button.action').count()).toBe(0);
  });

  it('a viewer of everything who operates env=prod has action, acknowledge and silence controls on prod machines only', async () => {
    const { page } = ui;
    // Viewer of every machine (db2 is shown), operator over env=prod only.
    await signIn('otto', [
      { role: 'viewer', selector: null },
      { role: 'operator', selector: 'env=prod' },
    ]);
    await open(page);
    expect(await controls(page, 'web1')).toEqual({ actions: 2, silence: 1, ack: 1 });
    expect(await controls(page, 'db2')).toEqual({ actions: 0, silence: 0, ack: 0 });
    expect(await page.locator('button.forget').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add a machine' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'People' }).count()).toBe(0);
    // Its start goes through: the board agrees with what the page showed.
    await card(page, 'web1').getByRole('button', { name: 'Start ok on web1' }).click();
    await page.getByRole('button', { name: 'Yes, start ok on web1' }).click();
    await card(page, 'web1').locator('[data-outcome="done"]').waitFor();
  });

  it('an admin sees every control and the People and Tokens pages', async () => {
    const { page } = ui;
    await signIn('ada', [{ role: 'admin', selector: null }]);
    await open(page);
    await card(page, 'lab7').waitFor();
    expect(await controls(page, 'db2')).toEqual({ actions: 2, silence: 1, ack: 1 });
    expect(await page.locator('button.forget').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Add a machine' }).count()).toBe(1);
    await page.getByRole('link', { name: 'People' }).click();
    await page.getByRole('heading', { name: 'People' }).waitFor();
    await page.locator('tr[data-person="ada"]').waitFor();
    expect(await page.getByRole('button', { name: 'Add a person' }).count()).toBe(1);
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    expect(await page.getByRole('button', { name: 'Make a token' }).count()).toBe(1);
  });

  it('the journal panel filters by actor (kind and name)', async () => {
    const { page } = ui;
    // A person's entry (the sign-out of a session) and a board token's (a start).
    const secret = await people.signIn('zoe', [{ role: 'viewer', selector: null }]);
    secrets.push(secret);
    const out = await fetch(`${ui.fleet.board.url}/auth/logout`, {
      method: 'POST',
      headers: { cookie: `panoptes=${secret}`, origin: ui.fleet.board.url },
    });
    expect(out.status).toBe(200);
    const act = await fetch(`${ui.fleet.board.url}/api/do/db2/ok/start`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    });
    expect(act.status).toBe(200);
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const journal = page.getByRole('complementary', { name: 'Journal' });
    const actors = () =>
      journal
        .locator('li.entry')
        .evaluateAll((els) =>
          els.map(
            (e) =>
              e.querySelector('.entry-actor')?.getAttribute('data-actor') ??
              `machine-or-none ${e.querySelector('.entry-what')?.textContent}`,
          ),
        );
    await expect.poll(async () => (await actors()).includes('person:zoe')).toBe(true);
    await journal.getByLabel('Filter by actor').selectOption('person');
    await expect.poll(async () => new Set(await actors()).has('board_token:board')).toBe(false);
    expect((await actors()).every((a) => a.startsWith('person:'))).toBe(true);
    await journal.getByLabel("Actor's name").fill('zo');
    await expect.poll(() => actors()).toEqual(['person:zoe']);
    await journal.getByLabel('Filter by actor').selectOption('board_token');
    await expect.poll(() => actors()).toEqual([]);
    await journal.getByLabel("Actor's name").fill('');
    await expect.poll(async () => (await actors()).length).toBeGreaterThan(0);
    expect((await actors()).every((a) => a.startsWith('board_token:'))).toBe(true);
    await journal.getByRole('button', { name: 'Clear journal filters' }).click();
    await expect.poll(async () => (await actors()).includes('person:zoe')).toBe(true);
  });

  it('fits a phone: the sign-in page, the board with the name, the Tokens page', async () => {
    const phone = await ui.open({ viewport: { width: 390, height: 844 }, isMobile: true });
    phone.allow(NO_SESSION_YET);
    const { page } = phone;
    const fits = () =>
      page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
    await page.goto(`${ui.fleet.board.url}/`);
    await page.getByLabel('Board token').waitFor();
    await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
    expect(await fits()).toBe(true);
    const secret = await people.signIn('pia', [{ role: 'admin', selector: null }]);
    secrets.push(secret);
    await page.context().addCookies([{ name: 'panoptes', value: secret, url: ui.fleet.board.url }]);
    await page.reload();
    await page.getByTestId('summary').waitFor();
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe('pia');
    expect(await fits()).toBe(true);
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    expect(await fits()).toBe(true);
    await phone.expectClean();
  });

  scanForSecretsAfterAll(() => ({
    secrets: [BOARD_TOKEN, ...SECRETS, ...secrets],
    dirs: [dir.path],
  }));
});
