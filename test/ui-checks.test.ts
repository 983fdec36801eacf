import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { BOARD_TOKEN, openBoard, reportBody, useBrowserPage } from './helpers/browser.js';
import { tempDir } from './helpers/tmp.js';

const IMAGES = fileURLToPath(new URL('../docs/images/', import.meta.url));
const RUNNERS = 'name in (probe-fra, probe-ams)';
const PUSH_TOKEN = 'ui-checks-push-token-7c1e9a';
// Machine text that would run script if it were ever taken for HTML.
const HOSTILE = '<img src=x onerror="window.__pwned=1"> [STATUS] (503) == 200';

declare global {
  interface Window {
    __pwned?: number;
  }
}

/** What an announced agent's report carries: its overview with its last check results. */
function reportWith(
  name: string,
  checks: { name: string; ok: boolean; ms: number; detail: string }[],
): Record<string, unknown> {
  const at = new Date().toISOString();
  return {
    ...reportBody(name, `http://${name}.example:8701/`, []),
    checks: checks.map((c) => ({ ...c, at })),
    checks_version: '',
  };
}

/** The Checks section of the board page and each check's page, on a wide screen and a phone. */
describe('UI: checks', () => {
  const dir = tempDir('panoptes-ui-checks-');
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [],
      board: {
        checks: [
          {
            name: 'api',
            type: 'http',
            target: 'http://api.example:8080/health',
            interval: 5,
            runners: { selector: RUNNERS, quorum: 1 },
            failure_threshold: 1,
          },
          {
            name: 'db-port',
            type: 'tcp',
            target: 'db.example:5432',
            interval: 5,
            runners: { selector: RUNNERS },
          },
          { name: 'nightly-backup', type: 'push', period: '1h', grace: '5m', token: PUSH_TOKEN },
        ],
      },
    },
    page: { viewport: { width: 1280, height: 900 } },
  });

  const reportBoth = async (fraOk: boolean) => {
    await ui.fleet.report(
      reportWith('probe-fra', [
        { name: 'api', ok: fraOk, ms: 120, detail: fraOk ? '' : HOSTILE },
        { name: 'db-port', ok: true, ms: 10, detail: '' },
      ]),
    );
    await ui.fleet.report(reportWith('probe-ams', [{ name: 'api', ok: true, ms: 40, detail: '' }]));
  };

  const row = (page: Page, check: string) => page.locator(`tr.check-row[data-check="${check}"]`);

  it('shows one row per check with its state, mean latency, failing runners and since; live', async () => {
    const { page } = ui;
    await reportBoth(false);
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const section = page.getByRole('region', { name: /^Checks/ });
    await section.waitFor();
    await expect.poll(() => section.locator('tr.check-row').count()).toBe(3);

    // Every state is a word (and a shape), not a colour alone.
    for (const name of ['api', 'db-port', 'nightly-backup']) {
      const badge = row(page, name).locator('.state-badge');
      const state = await badge.getAttribute('data-state');
      expect(['up', 'down', 'unknown']).toContain(state);
      expect((await badge.textContent())?.toLowerCase()).toContain(state);
    }

    const api = row(page, 'api');
    // The mean of the two runners' last response times: (120 + 40) / 2.
    await expect.poll(() => api.getByTestId('check-latency').textContent()).toBe('80 ms');
    const failing = api.getByTestId('check-failing');
    expect(await failing.locator('li').allTextContents()).toEqual(['probe-fra']);
    expect(await failing.getByRole('link', { name: 'probe-fra' }).getAttribute('href')).toBe(
      '?machine=probe-fra',
    );
    expect(await row(page, 'db-port').getByTestId('check-failing').textContent()).toBe('none of 1');
    expect(await row(page, 'nightly-backup').getByTestId('check-failing').textContent()).toBe(
      'No results yet',
    );
    mkdirSync(IMAGES, { recursive: true });
    await section.screenshot({ path: `${IMAGES}ui-checks.png` });

    // A new result reaches the open page without a reload.
    await reportBoth(true);
    await expect
      .poll(() => api.getByTestId('check-failing').textContent(), { timeout: 20_000 })
      .toBe('none of 2');

    // A failing runner's machine is a link to its page.
    await reportBoth(false);
    const link = api.getByTestId('check-failing').getByRole('link', { name: 'probe-fra' });
    await link.waitFor({ timeout: 20_000 });
    await link.click();
    await page.getByRole('heading', { level: 1, name: 'probe-fra' }).waitFor();
  });

  it("opens a check's page by keyboard: its runners' results, detail as text, ranges", async () => {
    const { page } = ui;
    // The check history may not be recorded on this board: its page says so instead.
    ui.watched.allow(/status of 404/);
    await reportBoth(false);
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const link = row(page, 'api').getByRole('link', { name: 'api' });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'api' }).waitFor();
    expect(new URL(page.url()).searchParams.get('check')).toBe('api');

    const facts = page.getByTestId('check-facts');
    await expect.poll(() => facts.textContent()).toContain('http');
    const results = page.getByTestId('check-results');
    const fra = results.locator('tr[data-runner="probe-fra"]');
    await expect.poll(() => fra.locator('.check-detail').textContent()).toBe(HOSTILE);
    expect(await fra.textContent()).toContain('failed');
    expect(await fra.textContent()).toContain('120 ms');
    const ams = results.locator('tr[data-runner="probe-ams"]');
    expect(await ams.textContent()).toContain('passed');
    // The detail stayed text: no element was made of it, nothing ran.
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();

    // The ranges of the check history; whatever the board answers, the page stays whole.
    await page.getByRole('button', { name: '7d' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('range')).toBe('7d');
    await expect
      .poll(
        async () =>
          (await page.getByTestId('check-no-history').count()) +
          (await page.locator('.check-runner-charts').count()),
      )
      .toBeGreaterThan(0);

    await page
      .getByRole('link', { name: /All machines/ })
      .first()
      .click();
    await page.getByRole('region', { name: /^Checks/ }).waitFor();

    // A check the board does not have (or the reader may not see): said so, nothing else.
    await page.goto(`${ui.fleet.board.url}/?check=${encodeURIComponent('no<b>such</b>')}`);
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toBe('No check named no<b>such</b> on this board.');
    expect(await page.getByTestId('check-results').count()).toBe(0);
  });

  it('works on a phone: the section and the page without sideways scrolling', async () => {
    const w = await ui.open({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    w.allow(/status of 404/);
    try {
      await reportBoth(false);
      await openBoard(w.page, ui.fleet.board.url, BOARD_TOKEN);
      await expect.poll(() => w.page.locator('tr.check-row').count()).toBe(3);
      const overflow = () =>
        w.page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
      expect(await overflow()).toBeLessThanOrEqual(0);
      for (const box of await w.page
        .locator('tr.check-row')
        .evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().right)))
        expect(box).toBeLessThanOrEqual(390);
      await row(w.page, 'api').getByRole('link', { name: 'api' }).click();
      await w.page.getByTestId('check-results').waitFor();
      expect(await overflow()).toBeLessThanOrEqual(0);
      await w.expectClean();
    } finally {
      await w.page.context().close();
    }
  });

  it('puts a down check first: down after one failure (threshold 1, quorum 1), up after a success', async () => {
    const { page } = ui;
    await reportBoth(false);
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(() => row(page, 'api').getAttribute('data-state')).toBe('down');
    expect(await row(page, 'api').locator('.state-badge').textContent()).toContain('down');
    expect(await page.locator('tr.check-row').first().getAttribute('data-check')).toBe('api');
    await expect.poll(() => row(page, 'db-port').getAttribute('data-state')).toBe('up');
    expect(await row(page, 'api').locator('time').count()).toBe(1);
    await reportBoth(true);
    await expect
      .poll(() => row(page, 'api').getAttribute('data-state'), { timeout: 20_000 })
      .toBe('up');
  });

  it("draws each runner's response time and success on the check's page", async () => {
    const { page } = ui;
    await reportBoth(false);
    await reportBoth(true);
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await row(page, 'api').getByRole('link', { name: 'api' }).click();
    await page.getByRole('button', { name: '1h' }).click();
    for (const runner of ['probe-fra', 'probe-ams']) {
      const charts = page.locator(`.check-runner-charts[data-runner="${runner}"]`);
      await expect.poll(() => charts.locator('canvas').count(), { timeout: 20_000 }).toBe(2);
      expect(await charts.locator('figcaption').allTextContents()).toEqual([
        'Response time',
        'Successful runs',
      ]);
    }
    await expect.poll(() => page.getByTestId('check-uptime').textContent()).toMatch(/%/);
  });

  it('names a push beat\'s runner with the word "push"', async () => {
    const { page } = ui;
    const r = await fetch(
      `${ui.fleet.board.url}/api/push/${PUSH_TOKEN}?status=down&msg=disk%20full`,
    );
    expect(r.status).toBe(200);
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const failing = row(page, 'nightly-backup').getByTestId('check-failing');
    await expect.poll(() => failing.textContent()).toBe('push');
    expect(await failing.getByRole('link').count()).toBe(0);
  });
});
