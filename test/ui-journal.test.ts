import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, card, openBoard, reportBody, useBrowserPage } from './helpers/browser.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** The journal panel: recent entries, live, filterable by machine and outcome. */
describe('UI: the journal', () => {
  const dir = tempDir('panoptes-ui-journal-');
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [
        {
          name: 'web1',
          services: {
            ok: { start: ['true'], board: ['start'] },
            bad: { start: ['false'], board: ['start'] },
          },
        },
        { name: 'db2', services: { ok: { start: ['true'], board: ['start'] } } },
      ],
    },
    page: { viewport: { width: 1400, height: 1000 } },
  });

  /** What another client (not this page) does: a POST /api/do with the board token. */
  const act = async (machine: string, what: string, action: string) => {
    const r = await fetch(`${ui.fleet.board.url}/api/do/${machine}/${what}/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
      signal: AbortSignal.timeout(10_000),
    });
    await r.text();
  };
  const entries = (page: Page) =>
    page
      .locator('#journal li.entry')
      .evaluateAll((els) =>
        els.map(
          (e) =>
            `${e.querySelector('.outcome-badge')?.textContent} ${e.querySelector('.entry-what')?.textContent}`,
        ),
      );

  beforeAll(async () => {
    await act('web1', 'ok', 'start');
  });

  it('lists recent entries, newest first, and adds new ones live', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(() => entries(page)).toEqual(['done do web1/ok/start']);
    const first = page.locator('#journal li.entry').first();
    expect(await first.locator('.entry-who').textContent()).toBe('board token · 200');
    expect(await first.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);

    await act('web1', 'bad', 'start');
    await act('db2', 'ok', 'start');
    await ui.fleet.report(reportBody('lab7', 'http://lab7.example/', []));
    await expect
      .poll(() => entries(page))
      .toEqual([
        'announced announce lab7',
        'done do db2/ok/start',
        'failed do web1/bad/start',
        'done do web1/ok/start',
      ]);
  });

  it('filters by machine and by outcome; the filters live in the address', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(async () => (await entries(page)).length).toBeGreaterThanOrEqual(4);
    const journal = page.getByRole('complementary', { name: 'Journal' });

    await journal.getByLabel('Filter by outcome').selectOption('failed');
    await expect.poll(() => entries(page)).toEqual(['failed do web1/bad/start']);
    await journal.getByLabel('Filter by outcome').selectOption('');
    await journal.getByLabel('Filter by machine').fill('db2');
    await expect.poll(() => entries(page)).toEqual(['done do db2/ok/start']);
    await expect.poll(() => new URL(page.url()).search).toBe('?jm=db2');

    // A new entry that does not match stays out; one that matches comes in, live.
    await act('web1', 'ok', 'start');
    await act('db2', 'ok', 'start');
    await expect
      .poll(() => entries(page))
      .toEqual(['done do db2/ok/start', 'done do db2/ok/start']);

    await page.reload();
    await page.getByTestId('summary').waitFor();
    expect(await journal.getByLabel('Filter by machine').inputValue()).toBe('db2');
    await expect.poll(async () => (await entries(page)).length).toBe(2);
    await journal.getByRole('button', { name: 'Clear journal filters' }).click();
    await expect.poll(async () => (await entries(page)).length).toBeGreaterThanOrEqual(6);
  });

  it('a machine’s "Journal" button shows that machine’s entries; the panel can be hidden', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await card(page, 'web1').getByRole('button', { name: 'Show the journal of web1' }).click();
    // Both at once: while the filtered list loads it is empty, and every() of nothing is true.
    await expect
      .poll(async () => {
        const shown = await entries(page);
        return shown.length >= 3 && shown.every((e) => e.includes(' web1/'));
      })
      .toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('journal-heading');

    const toggle = page.getByRole('button', { name: 'Hide journal' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await toggle.click();
    expect(await page.locator('#journal').count()).toBe(0);
    // The choice is remembered.
    await page.reload();
    await page.getByTestId('summary').waitFor();
    expect(await page.locator('#journal').count()).toBe(0);
    await page.getByRole('button', { name: 'Show journal' }).click();
    await page.locator('#journal').waitFor();
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, ...SECRETS], dirs: [dir.path] }));
});
