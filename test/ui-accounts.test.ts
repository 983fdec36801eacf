import type { Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { BOARD_TOKEN, openBoard, useBrowserPage } from './helpers/browser.js';
import { tempDir } from './helpers/tmp.js';

interface Person {
  name: string;
  source: string;
  bindings: { role: string; selector: string | null }[];
  created_at: string;
  signed_in_at: string | null;
  passkeys: number;
  password: boolean;
}

/**
 * A UI test of the People and Tokens pages: the page talks to a stand-in set up with
 * Playwright's page.route that answers as DESIGN 15's contract says, and the test checks every
 * request the page makes. ui-people-routes.test.ts runs the pages against the real routes.
 */
describe('UI (routes stubbed in the page): the People and Tokens pages', () => {
  const dir = tempDir('panoptes-ui-accounts-');
  const ui = useBrowserPage({ dir, fleet: { configured: [{ name: 'web1', services: {} }] } });

  it('People: lists, adds a person (the link shown once), changes roles, makes a new link, removes', async () => {
    const { page } = ui;
    const people: Person[] = [
      {
        name: 'ada',
        source: 'local',
        bindings: [{ role: 'admin', selector: null }],
        created_at: '2026-12-01T10:00:00Z',
        signed_in_at: '2026-12-06T09:30:00Z',
        passkeys: 2,
        password: false,
      },
    ];
    const calls: string[] = [];
    let links = 0;
    const link = () => ({
      link: `${ui.fleet.board.url}/#signup=one-time-${++links}`,
      link_expires_at: '2026-12-08T10:00:00Z',
    });
    await page.route('**/api/people**', (route: Route) => {
      const r = route.request();
      const path = decodeURIComponent(new URL(r.url()).pathname);
      calls.push(`${r.method()} ${path}`);
      const body = r.postDataJSON() as Record<string, unknown> | null;
      const name = path.split('/')[3];
      if (r.method() === 'GET') return route.fulfill({ json: { people } });
      if (r.method() === 'POST' && path === '/api/people') {
        const added = {
          name: String(body?.name),
          source: 'local',
          bindings: body?.bindings as Person['bindings'],
          created_at: '2026-12-07T10:00:00Z',
          signed_in_at: null,
          passkeys: 0,
          password: false,
        };
        people.push(added);
        return route.fulfill({
          status: 201,
          json: { name: added.name, bindings: added.bindings, ...link() },
        });
      }
      const person = people.find((p) => p.name === name);
      if (person === undefined)
        return route.fulfill({ status: 404, json: { detail: 'No such person' } });
      if (r.method() === 'POST' && path.endsWith('/link')) return route.fulfill({ json: link() });
      if (r.method() === 'PUT') {
        person.bindings = body?.bindings as Person['bindings'];
        return route.fulfill({ json: { name: person.name, bindings: person.bindings } });
      }
      people.splice(people.indexOf(person), 1);
      return route.fulfill({ json: { name: person.name } });
    });
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await page.getByRole('link', { name: 'People' }).click();
    const row = (name: string) => page.locator(`tr[data-person="${name}"]`);
    await row('ada').waitFor();
    expect(await row('ada').locator('td').allTextContents()).toEqual([
      'local',
      'admin',
      expect.any(String),
      '2',
      'no',
      expect.stringContaining('Change roles'),
    ]);

    // Add: the link is shown once, in a box with a copy button.
    await page.getByLabel('Name', { exact: true }).fill('bob');
    await page
      .getByRole('form', { name: 'Add a person' })
      .getByLabel('Role')
      .selectOption('operator');
    await page.getByRole('form', { name: 'Add a person' }).getByLabel('Machines').fill('env=prod');
    await page.getByRole('button', { name: 'Add a person' }).click();
    await expect
      .poll(() => page.getByTestId('shown-once').inputValue())
      .toContain('#signup=one-time-1');
    expect(people.at(-1)?.bindings).toEqual([{ role: 'operator', selector: 'env=prod' }]);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('shown-once').count()).toBe(0);
    await expect
      .poll(() => row('bob').locator('td').nth(1).textContent())
      .toBe('operator env=prod');

    // Change roles: bob becomes a viewer everywhere.
    await page.getByRole('button', { name: 'Change the roles of bob' }).click();
    await row('bob').getByLabel('Role').selectOption('viewer');
    await row('bob').getByLabel('Machines').fill('');
    await row('bob').getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row('bob').locator('td').nth(1).textContent()).toBe('viewer');
    expect(people.at(-1)?.bindings).toEqual([{ role: 'viewer', selector: null }]);

    // A new link, then remove (asked first).
    await page.getByRole('button', { name: 'A new sign-up link for bob' }).click();
    await expect
      .poll(() => page.getByTestId('shown-once').inputValue())
      .toContain('#signup=one-time-2');
    await page.getByRole('button', { name: 'Remove bob' }).click();
    await page.getByRole('button', { name: 'Yes, remove bob' }).click();
    await expect.poll(() => row('bob').count()).toBe(0);
    expect(calls).toEqual([
      'GET /api/people',
      'POST /api/people',
      'GET /api/people',
      'PUT /api/people/bob',
      'GET /api/people',
      'POST /api/people/bob/link',
      'GET /api/people',
      'DELETE /api/people/bob',
      'GET /api/people',
    ]);
  });

  it('Tokens: lists, makes one (shown once, never listed), deletes one', async () => {
    const { page } = ui;
    const tokens = [
      {
        id: 'tok1',
        name: 'ci',
        role: 'viewer',
        selector: null as string | null,
        created_at: '2026-12-01T10:00:00Z',
        expires_at: null as string | null,
        last_used_at: '2026-12-07T08:00:00Z' as string | null,
      },
    ];
    const made: unknown[] = [];
    await page.route('**/api/tokens**', (route: Route) => {
      const r = route.request();
      const path = new URL(r.url()).pathname;
      if (r.method() === 'GET') return route.fulfill({ json: { tokens } });
      if (r.method() === 'POST') {
        const body = r.postDataJSON() as Record<string, unknown>;
        made.push(body);
        const t = {
          id: 'tok2',
          name: String(body.name),
          role: String(body.role),
          selector: typeof body.selector === 'string' ? body.selector : null,
          created_at: '2026-12-07T10:00:00Z',
          expires_at: '2027-01-06T10:00:00Z',
          last_used_at: null,
        };
        tokens.push(t);
        return route.fulfill({ status: 201, json: { ...t, token: 'pnp_shown-only-once-0123' } });
      }
      const id = path.split('/')[3];
      tokens.splice(
        tokens.findIndex((t) => t.id === id),
        1,
      );
      return route.fulfill({ json: { id } });
    });
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await page.getByRole('link', { name: 'Tokens' }).click();
    const row = (id: string) => page.locator(`tr[data-token="${id}"]`);
    await row('tok1').waitFor();
    expect(await row('tok1').locator('td').nth(2).textContent()).toBe('until deleted');

    const form = page.getByRole('form', { name: 'Make a token' });
    await form.getByLabel('Name').fill('deploy');
    await form.getByLabel('Role').selectOption('operator');
    await form.getByLabel('Machines').fill('env=prod');
    await form.getByLabel('Valid for').selectOption({ label: '30 days' });
    await page.getByRole('button', { name: 'Make a token' }).click();
    await expect
      .poll(() => page.getByTestId('shown-once').inputValue())
      .toBe('pnp_shown-only-once-0123');
    expect(made).toEqual([
      { name: 'deploy', role: 'operator', selector: 'env=prod', expires_in_s: 30 * 86400 },
    ]);
    await row('tok2').waitFor();
    expect(await page.locator('table').textContent()).not.toContain('pnp_');
    await page.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Delete the token ci' }).click();
    await page.getByRole('button', { name: 'Yes, delete ci' }).click();
    await expect.poll(() => row('tok1').count()).toBe(0);
    expect(await row('tok2').count()).toBe(1);
  });
});
