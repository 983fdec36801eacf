import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/board/auth/passwords.js';
import { SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, useBrowserPage } from './helpers/browser.js';
import { PeopleSessions } from './helpers/people-sessions.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** A page with no session asks GET /api/me, which answers 401: Chromium logs it. */
const REFUSED = /Failed to load resource: the server responded with a status of 40[13]/;
const PASSWORD = 'correct horse battery staple';

/** The page end to end against the board's real sign-in, people and token routes. */
describe('UI: sign-in, People and Tokens against the real routes', () => {
  const dir = tempDir('panoptes-ui-people-routes-');
  const ui = useBrowserPage({
    dir,
    fleet: { configured: [{ name: 'web1', services: {}, labels: { env: 'prod' } }] },
    page: { viewport: { width: 1400, height: 1000 } },
  });
  let people: PeopleSessions;
  const secrets: string[] = [];
  beforeAll(() => {
    people = new PeopleSessions(`${ui.fleet.configDir}/data`);
  });
  afterAll(() => people?.close());

  it('signs in with a name and password: the board’s refusal shown, then the person’s name', async () => {
    const { page } = ui;
    ui.watched.allow(REFUSED);
    const now = Date.now();
    await people.access.people.put({
      name: 'pat',
      source: 'local',
      bindings: [{ role: 'viewer', selector: null }],
      created_at: now,
      signed_in_at: null,
      password: await hashPassword(PASSWORD),
    });
    await page.goto(`${ui.fleet.board.url}/`);
    await page.getByLabel('Name', { exact: true }).fill('pat');
    await page.getByLabel('Password', { exact: true }).fill('not the password at all');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect
      .poll(() => page.getByTestId('person-sign-in-problem').textContent())
      .toBe('Wrong name or password');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('summary').waitFor();
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe('pat');
    expect(await page.getByRole('link', { name: 'People' }).count()).toBe(0);
  });

  it('People: adds a person (link shown once), changes their roles, a new link, removes them', async () => {
    const { page } = ui;
    secrets.push(
      await people.signInBrowser(ui.context, ui.fleet.board.url, 'ada', [
        { role: 'admin', selector: null },
      ]),
    );
    await page.goto(`${ui.fleet.board.url}/?page=people`);
    const row = (name: string) => page.locator(`tr[data-person="${name}"]`);
    await row('ada').waitFor();
    const add = page.getByRole('form', { name: 'Add a person' });
    await add.getByLabel('Name').fill('bob');
    await add.getByLabel('Role').selectOption('operator');
    await add.getByLabel('Machines').fill('env=prod');
    await page.getByRole('button', { name: 'Add a person' }).click();
    await expect.poll(() => page.getByTestId('shown-once').inputValue()).toContain('#signup=');
    const first = await page.getByTestId('shown-once').inputValue();
    secrets.push(first.split('#signup=')[1] ?? '');
    await expect
      .poll(() => row('bob').locator('td').nth(1).textContent())
      .toBe('operator env=prod');
    expect(await row('bob').locator('td').first().textContent()).toBe('local');
    await page.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Change the roles of bob' }).click();
    await row('bob').getByLabel('Role').selectOption('viewer');
    await row('bob').getByLabel('Machines').fill('');
    await row('bob').getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row('bob').locator('td').nth(1).textContent()).toBe('viewer');
    expect((await people.access.people.get('bob'))?.bindings).toEqual([
      { role: 'viewer', selector: null },
    ]);

    await page.getByRole('button', { name: 'A new sign-up link for bob' }).click();
    await expect.poll(() => page.getByTestId('shown-once').inputValue()).not.toBe(first);
    secrets.push((await page.getByTestId('shown-once').inputValue()).split('#signup=')[1] ?? '');
    await page.getByRole('button', { name: 'Remove bob' }).click();
    await page.getByRole('button', { name: 'Yes, remove bob' }).click();
    await expect.poll(() => row('bob').count()).toBe(0);
    expect(await people.access.people.get('bob')).toBeNull();
  });

  it('Tokens: a viewer makes one (shown once; it works), cannot make a wider one, deletes it', async () => {
    const { page } = ui;
    ui.watched.allow(REFUSED);
    secrets.push(
      await people.signInBrowser(ui.context, ui.fleet.board.url, 'vic', [
        { role: 'viewer', selector: null },
      ]),
    );
    await page.goto(`${ui.fleet.board.url}/`);
    await page.getByRole('link', { name: 'Tokens' }).click();
    const form = page.getByRole('form', { name: 'Make a token' });
    await form.getByLabel('Name').fill('ci');
    await page.getByRole('button', { name: 'Make a token' }).click();
    await expect.poll(() => page.getByTestId('shown-once').inputValue()).toMatch(/^pnp_/);
    const token = await page.getByTestId('shown-once').inputValue();
    secrets.push(token);
    const me = await fetch(`${ui.fleet.board.url}/api/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.locator('tr[data-token]').filter({ hasText: 'ci' });
    await row.waitFor();
    expect(await page.locator('table').textContent()).not.toContain('pnp_');

    // Wider than its maker: the board says no, and the page shows its words.
    await form.getByLabel('Name').fill('deploy');
    await form.getByLabel('Role').selectOption('operator');
    await page.getByRole('button', { name: 'Make a token' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByTestId('shown-once').count()).toBe(0);

    await page.getByRole('button', { name: 'Delete the token ci' }).click();
    await page.getByRole('button', { name: 'Yes, delete ci' }).click();
    await expect.poll(() => row.count()).toBe(0);
    // The 2-second lookup cache may still hold it: wait for the refusal.
    await expect
      .poll(async () => {
        const r = await fetch(`${ui.fleet.board.url}/api/languages`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return r.status;
      })
      .toBe(401);
  });

  scanForSecretsAfterAll(() => ({
    secrets: [BOARD_TOKEN, ...SECRETS, ...secrets.filter((s) => s !== '')],
    dirs: [dir.path],
  }));
});
