import type { Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOARD_TOKEN, useBrowserPage } from './helpers/browser.js';
import { PeopleSessions } from './helpers/people-sessions.js';
import { tempDir } from './helpers/tmp.js';

/** A page with no session asks GET /api/me, which answers 401: Chromium logs it. */
const NO_SESSION_YET = /Failed to load resource: the server responded with a status of 401/;

/** The sign-in page (issue 60 item 8): a person's ways in, and the board token form kept. */
describe('UI: the sign-in page', () => {
  const dir = tempDir('panoptes-ui-sign-in-page-');
  const ui = useBrowserPage({
    dir,
    fleet: { configured: [{ name: 'web1', services: {} }] },
  });
  let people: PeopleSessions;
  beforeAll(() => {
    people = new PeopleSessions(`${ui.fleet.configDir}/data`);
  });
  afterAll(() => people?.close());

  it('offers a passkey, a name and password, and the board token; no provider button without auth.oidc', async () => {
    const { page } = ui;
    ui.watched.allow(NO_SESSION_YET);
    await page.goto(`${ui.fleet.board.url}/`);
    await page.getByLabel('Board token').waitFor();
    await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).count()).toBe(1);
    expect(await page.getByLabel('Password', { exact: true }).count()).toBe(1);
    expect(await page.getByTestId('provider-sign-in').count()).toBe(0);
    // The board token form still signs in.
    await page.getByLabel('Board token').fill(BOARD_TOKEN);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByTestId('summary').waitFor();
  });

  it('password (route stubbed in the page): the board’s detail on 401, wait on 429, signed in on 200', async () => {
    const { page } = ui;
    ui.watched.allow(NO_SESSION_YET);
    ui.watched.allow(/status of 429/);
    const asked: unknown[] = [];
    let answer = 401;
    // POST /auth/password is built by another item of the issue: until it is on main, this
    // stand-in answers as its contract says; its success starts a real session in the store.
    await page.route('**/auth/password', async (route: Route) => {
      asked.push(route.request().postDataJSON());
      if (answer === 401)
        return route.fulfill({ status: 401, json: { detail: 'Wrong name or password' } });
      if (answer === 429)
        return route.fulfill({
          status: 429,
          json: { detail: 'Too many failed sign-ins; try again in 60 s' },
        });
      const secret = await people.signIn('pat', [{ role: 'viewer', selector: null }]);
      await ui.context.addCookies([{ name: 'panoptes', value: secret, url: ui.fleet.board.url }]);
      return route.fulfill({ status: 200, json: { name: 'pat' } });
    });
    await page.goto(`${ui.fleet.board.url}/`);
    await page.getByLabel('Name', { exact: true }).fill('pat');
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Continue' }).click();
    const problem = page.getByTestId('person-sign-in-problem');
    await expect.poll(() => problem.textContent()).toBe('Wrong name or password');
    expect(asked).toEqual([{ name: 'pat', password: 'not the password' }]);

    answer = 429;
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => problem.textContent()).toContain('wait a minute');

    answer = 200;
    await page.getByLabel('Password', { exact: true }).fill('the right password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('summary').waitFor();
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe('pat');
  });

  it('passkey (routes stubbed in the page): asks the board for options; shows its refusal', async () => {
    const { page } = ui;
    ui.watched.allow(NO_SESSION_YET);
    ui.watched.allow(/status of 429/);
    let options = 0;
    await page.route('**/auth/passkey/options', (route: Route) => {
      options += 1;
      return route.fulfill({ status: 429, json: { detail: 'Too many failed sign-ins' } });
    });
    await page.goto(`${ui.fleet.board.url}/`);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await expect
      .poll(() => page.getByTestId('person-sign-in-problem').textContent())
      .toContain('Too many failed sign-ins');
    expect(options).toBe(1);
  });
});

describe('UI: the sign-in page with an identity provider configured', () => {
  const dir = tempDir('panoptes-ui-sign-in-oidc-');
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [{ name: 'web1', services: {} }],
      board: {
        auth: {
          // Nothing needs to answer there for the button to show.
          oidc: {
            issuer: 'https://127.0.0.1:9/',
            client_id: 'panoptes',
            client_secret: 'not-used-in-this-test',
            name: 'Keycloak',
            roles: [{ group: 'ops', role: 'admin' }],
          },
        },
      },
    },
  });

  it('shows the provider button, which starts the sign-in and returns to this page', async () => {
    const { page } = ui;
    ui.watched.allow(NO_SESSION_YET);
    await page.goto(`${ui.fleet.board.url}/?machine=web1`);
    const button = page.getByRole('link', { name: 'Sign in with Keycloak' });
    await button.waitFor();
    const href = new URL((await button.getAttribute('href')) ?? '', ui.fleet.board.url);
    expect(href.pathname).toBe('/auth/oidc/login');
    expect(href.searchParams.get('return')).toBe('/?machine=web1');
    await page.getByLabel('Board token').waitFor();
  });
});
