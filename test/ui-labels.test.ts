import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, card, openBoard, reportBody, useBrowserPage } from './helpers/browser.js';
import { closedPort } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const SERVICES = { ping: { start: ['true'], board: [] } };

/** The machines the page lists, in order. */
const listed = (page: Page) =>
  page
    .locator('article[data-machine]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-machine')));

const chips = (page: Page, machine: string) =>
  card(page, machine)
    .locator('.label-chip')
    .evaluateAll((els) =>
      els.map((e) => `${e.className.replace('label-chip ', '')}:${e.textContent}`),
    );

/** Labels on cards and the machine page, the group bar, selectors, grouping, the editor. */
describe('UI: labels and groups', () => {
  const dir = tempDir('panoptes-ui-labels-');
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [
        { name: 'fra-web1', services: SERVICES, labels: { site: 'fra', env: 'prod', gpu: '' } },
        { name: 'fra-db1', services: SERVICES, labels: { site: 'fra', env: 'staging' } },
        { name: 'ams-web2', services: SERVICES, labels: { site: 'ams', env: 'prod' } },
      ],
      down: ['nas1'],
      board: {
        groups: [
          { name: 'Frankfurt', selector: 'site=fra' },
          { name: 'Production', selector: 'env=prod' },
          { name: 'Not Amsterdam', selector: 'site notin (ams),!team' },
          { name: 'Web team', selector: 'team=web' },
          { name: 'GPU machines', selector: 'gpu' },
          { name: 'Staging machines', selector: 'env=staging' },
        ],
      },
    },
  });
  const board = () => ui.fleet.board.url;
  const api = async (path: string, init: RequestInit = {}) => {
    const r = await fetch(`${board()}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${BOARD_TOKEN}`, ...init.headers },
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };
  const labelsOf = async (name: string) => {
    const { json } = await api('/api/board');
    const m = (json.machines as { name: string; labels: unknown; board_labels: unknown }[]).find(
      (x) => x.name === name,
    );
    return { labels: m?.labels, board_labels: m?.board_labels };
  };

  beforeAll(async () => {
    // An announced machine whose agent labels itself (many labels: the chips must wrap).
    await ui.fleet.report({
      ...reportBody('lab3', `http://127.0.0.1:${await closedPort()}/`, []),
      labels: {
        team: 'web',
        owner: 'platform-infrastructure',
        rack: 'r12-row4-hall2',
        os: 'debian-12',
        tier: 'frontend-edge',
        zone: 'eu-central-1a',
      },
    });
  });

  const open = async (page: Page) => {
    await openBoard(page, board(), BOARD_TOKEN);
    await expect.poll(() => page.locator('article[data-machine]').count()).toBe(5);
  };

  it("shows each card's labels as chips, the board's apart from the agent's", async () => {
    const page = ui.page;
    await open(page);
    expect(await chips(page, 'fra-web1')).toEqual([
      'board:env=prod',
      'board:gpu',
      'board:site=fra',
    ]);
    expect(await chips(page, 'lab3')).toContain('agent:team=web');
    expect(await card(page, 'lab3').locator('.label-chip').first().getAttribute('title')).toBe(
      "Set by the machine's agent",
    );
    expect(await card(page, 'nas1').locator('.label-chip').count()).toBe(0);
  });

  it('shows the groups with their up and down machines; a group filters the list', async () => {
    const page = ui.page;
    await open(page);
    const group = (name: string) => page.locator(`.group-bar button[data-group="${name}"]`);
    await expect
      .poll(async () => [
        await group('Frankfurt').getAttribute('data-up'),
        await group('Frankfurt').getAttribute('data-down'),
        await group('Not Amsterdam').getAttribute('data-up'),
        await group('Not Amsterdam').getAttribute('data-down'),
      ])
      .toEqual(['2', '0', '2', '1']);
    await group('Frankfurt').click();
    await expect.poll(() => listed(page)).toEqual(['fra-db1', 'fra-web1']);
    expect(await group('Frankfurt').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.evaluate(() => window.location.search)).toContain('g=Frankfurt');
    await group('Frankfurt').click();
    await expect.poll(() => listed(page)).toHaveLength(5);
  });

  it('filters by a selector typed in the filter box, by name for a word, and shows a bad one', async () => {
    const page = ui.page;
    await open(page);
    const box = page.getByRole('searchbox', { name: 'Filter machines' });
    await box.fill('site=fra');
    await expect.poll(() => listed(page)).toEqual(['fra-db1', 'fra-web1']);
    await expect.poll(() => page.evaluate(() => window.location.search)).toBe('?q=site%3Dfra');
    await box.fill('env in (prod), !gpu');
    await expect.poll(() => listed(page)).toEqual(['ams-web2']);
    // A plain word is a search by name (and the like), as before.
    await box.fill('web');
    await expect.poll(() => listed(page)).toEqual(['ams-web2', 'fra-web1']);
    await box.fill('site=fra,,x');
    await expect
      .poll(() => page.locator('#filter-problem').textContent())
      .toBe('Not a selector: expected a label key (position 9)');
    expect(await box.getAttribute('aria-invalid')).toBe('true');
    await box.fill('');
    await expect.poll(() => page.locator('#filter-problem').count()).toBe(0);
    // The filter is in the address: a reload keeps it.
    await page.goto(`${board()}/?q=${encodeURIComponent('site=ams')}`);
    await expect.poll(() => listed(page)).toEqual(['ams-web2']);
  });

  it('groups the list by a label, with a heading and counts per value', async () => {
    const page = ui.page;
    await open(page);
    const by = page.getByRole('combobox', { name: 'Group by' });
    expect(await by.locator('option').allTextContents()).toEqual([
      '(none)',
      'env',
      'gpu',
      'os',
      'owner',
      'rack',
      'site',
      'team',
      'tier',
      'zone',
    ]);
    await by.selectOption('site');
    const heads = () => page.locator('.bucket-head').allTextContents();
    await expect
      .poll(heads)
      .toEqual(['site=ams 1 up, 0 down', 'site=fra 2 up, 0 down', '(without site) 1 up, 1 down']);
    expect(await listed(page)).toEqual(['ams-web2', 'fra-db1', 'fra-web1', 'lab3', 'nas1']);
    await by.selectOption('gpu');
    await expect.poll(heads).toEqual(['gpu (no value) 1 up, 0 down', '(without gpu) 3 up, 1 down']);
    await expect.poll(() => page.evaluate(() => window.location.search)).toBe('?by=gpu');
  });

  it("edits a machine's board labels on its page: saved through the API, refusals at the field", async () => {
    const page = ui.page;
    await openBoard(page, board(), BOARD_TOKEN);
    await page.goto(`${board()}/?machine=fra-db1`);
    const section = page.locator('section.machine-labels');
    await expect
      .poll(() => section.locator('.label-chip').allTextContents())
      .toEqual(['env=staging', 'site=fra']);
    await section.getByRole('button', { name: 'Edit board labels' }).click();
    const form = section.getByRole('form', { name: 'Board labels of fra-db1' });
    const row = (key: string) => form.locator(`li[data-row="${key}"]`);
    await row('env').getByRole('textbox', { name: 'Label value' }).fill('prod');
    await form.getByRole('button', { name: 'Add a label' }).click();
    await row('').getByRole('textbox', { name: 'Label key' }).fill('owner');
    await row('owner').getByRole('textbox', { name: 'Label value' }).fill('ml');

    // The page checks the rule before sending: a bad key is shown at its field, nothing sent.
    const puts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT') puts.push(r.url());
    });
    await form.getByRole('button', { name: 'Add a label' }).click();
    await row('').getByRole('textbox', { name: 'Label key' }).fill('Bad');
    await form.getByRole('button', { name: 'Save labels' }).click();
    await expect
      .poll(() => row('Bad').locator('.label-problem').textContent())
      .toContain('label "Bad": a key is 1-63 of a-z');
    expect(
      await row('Bad').getByRole('textbox', { name: 'Label key' }).getAttribute('aria-invalid'),
    ).toBe('true');
    expect(puts).toEqual([]);
    await row('Bad').getByRole('button', { name: 'Remove label Bad' }).click();

    // The board's own 422 (here provoked by changing the request on its way) lands at the field.
    await page.route('**/api/machines/fra-db1/labels', (route) =>
      route.continue({
        postData: JSON.stringify({ labels: { env: 'prod', owner: '-ml', site: 'fra' } }),
      }),
    );
    ui.watched.allow(/status of 422/);
    const refused = page.waitForResponse((r) => r.url().endsWith('/api/machines/fra-db1/labels'));
    await form.getByRole('button', { name: 'Save labels' }).click();
    expect((await refused).status()).toBe(422);
    await expect
      .poll(() => row('owner').locator('.label-problem').textContent())
      .toContain('label "owner": a value is empty or 1-63');
    await page.unroute('**/api/machines/fra-db1/labels');

    await form.getByRole('button', { name: 'Save labels' }).click();
    await expect
      .poll(() => labelsOf('fra-db1'))
      .toEqual({
        labels: { env: 'prod', owner: 'ml', site: 'fra' },
        board_labels: ['env', 'owner', 'site'],
      });
    await expect
      .poll(() => section.locator('.label-chip').allTextContents())
      .toEqual(['env=prod', 'owner=ml', 'site=fra']);
    expect(await form.count()).toBe(0);

    // {} clears what the API kept; board.yaml's labels stay under it.
    expect(
      (
        await api('/api/machines/fra-db1/labels', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: '{"labels":{}}',
        })
      ).status,
    ).toBe(200);
    await expect
      .poll(() => section.locator('.label-chip').allTextContents())
      .toEqual(['env=staging', 'site=fra']);
  });

  it('fits a phone: the group bar scrolls sideways, chips wrap, nothing overflows', async () => {
    const watched = await ui.open({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const { page } = watched;
    await open(page);
    await page.locator('.group-bar button').first().waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    const bar = await page.locator('.group-bar').evaluate((e) => ({
      scroll: e.scrollWidth,
      client: e.clientWidth,
      x: getComputedStyle(e).overflowX,
    }));
    expect(bar.x).toBe('auto');
    expect(bar.scroll).toBeGreaterThan(bar.client);
    const boxes = await card(page, 'lab3')
      .locator('.label-chip')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
    expect(new Set(boxes.map((b) => Math.round(b.top))).size).toBeGreaterThan(1);
    for (const b of boxes) expect(b.right).toBeLessThanOrEqual(390);
    await page.getByRole('combobox', { name: 'Group by' }).selectOption('site');
    await page.locator('.bucket-head').first().waitFor();
    expect(
      await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      ),
    ).toBe(0);
    await watched.expectClean();
  });

  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, ...SECRETS], dirs: [dir.path] }));
});
