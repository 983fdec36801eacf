import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, card, openBoard, reportBody, useBrowserPage } from './helpers/browser.js';
import { closedPort } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** docs/ui.md shows these; every run of this test takes them again. */
const IMAGES = fileURLToPath(new URL('../docs/images/', import.meta.url));

/** The relative luminance of a computed CSS colour, 0 (black) to 1 (white). */
function luminance(color: string): number {
  const [r = 0, g = 0, b = 0] = (color.match(/[\d.]+/g) ?? []).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

const background = (page: Page) =>
  page.evaluate(() => getComputedStyle(document.body).backgroundColor);

/** Phone, desktop and wall screen; light and dark themes; the screenshots for the docs. */
describe('UI: layout and themes', () => {
  const dir = tempDir('panoptes-ui-layout-');
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [
        {
          name: 'build7',
          services: {
            ci: { start: ['true'], stop: ['true'], board: ['start', 'stop'] },
            cache: { start: ['true'], status: ['true'], board: [] },
          },
        },
        {
          name: 'db2',
          services: { vacuum: { start: ['true'], board: ['start'] } },
        },
        {
          name: 'web1',
          services: {
            backup: {
              start: ['true'],
              stop: ['true'],
              status: ['true'],
              board: ['start', 'stop'],
            },
            deploy: { start: ['true'], board: ['start'] },
          },
        },
      ],
      down: ['nas1'],
    },
    page: false,
  });
  beforeAll(async () => {
    mkdirSync(IMAGES, { recursive: true });
    // An announced machine behind one-way NAT, with an action waiting for it.
    await ui.fleet.report(
      reportBody(`lab3`, `http://127.0.0.1:${await closedPort()}/`, [
        { name: 'train', state: 'running', board: ['start', 'stop'] },
      ]),
    );
    await fetch(`${ui.fleet.board.url}/api/do/lab3/train/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    }).then((r) => r.text());
    await ui.fleet.bell('db2', 'claude-db', 'attention', 'Apply migration 0042 to production?');
    await ui.fleet.bell('build7', 'codex-ci', 'error', 'cargo test: 2 tests failed in parser');
    await ui.fleet.bell('web1', 'claude-web', 'finished', 'Landing page done');
  });

  /** Opens the demo board in a fresh context and waits until it shows everything. */
  const show = async (options: BrowserContextOptions) => {
    const watched = await ui.open(options);
    const { page } = watched;
    const context = page.context();
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(() => page.locator('article.alarm').count()).toBe(2);
    await expect.poll(() => card(page, 'web1').locator('.metric').count()).toBe(4);
    await page.locator('#journal li.entry').first().waitFor();
    return { context, watched, page };
  };

  it('light theme by default, following the system (screenshot)', async () => {
    const { context, watched, page } = await show({
      viewport: { width: 1440, height: 960 },
      colorScheme: 'light',
    });
    expect(luminance(await background(page))).toBeGreaterThan(0.8);
    await page.screenshot({ path: `${IMAGES}ui-light.png` });
    await watched.expectClean();
    await context.close();
  });

  it('dark theme when the system is dark (screenshot)', async () => {
    const { context, watched, page } = await show({
      viewport: { width: 1440, height: 960 },
      colorScheme: 'dark',
    });
    expect(luminance(await background(page))).toBeLessThan(0.2);
    await page.screenshot({ path: `${IMAGES}ui-dark.png` });
    await watched.expectClean();
    await context.close();
  });

  it('the theme toggle overrides the system, and the choice is kept', async () => {
    const { context, watched, page } = await show({
      viewport: { width: 1280, height: 900 },
      colorScheme: 'light',
    });
    const toggle = page.getByRole('button', { name: /^Change the theme/ });
    expect(await toggle.getAttribute('aria-label')).toBe('Change the theme (now: System theme)');
    await toggle.click();
    expect(await toggle.getAttribute('aria-label')).toBe('Change the theme (now: Light theme)');
    await toggle.click();
    expect(await toggle.getAttribute('aria-label')).toBe('Change the theme (now: Dark theme)');
    await expect.poll(async () => luminance(await background(page))).toBeLessThan(0.2);
    await page.reload();
    await page.getByTestId('summary').waitFor();
    expect(luminance(await background(page))).toBeLessThan(0.2);
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    await page.getByRole('button', { name: /^Change the theme/ }).click();
    await expect.poll(async () => luminance(await background(page))).toBeGreaterThan(0.8);
    expect(await page.locator('html').getAttribute('data-theme')).toBeNull();
    await watched.expectClean();
    await context.close();
  });

  it('fits a phone: one column, nothing wider than the screen (screenshot)', async () => {
    const { context, watched, page } = await show({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      colorScheme: 'light',
    });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    const lefts = await page
      .locator('article[data-machine]')
      .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)));
    expect(new Set(lefts).size).toBe(1);
    // Every action button is on screen horizontally and big enough to tap.
    const boxes = await page
      .locator('.service-actions button')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
    for (const b of boxes) {
      expect(b.right).toBeLessThanOrEqual(390);
      expect(b.height).toBeGreaterThanOrEqual(28);
    }
    await page.screenshot({ path: `${IMAGES}ui-phone.png` });
    await watched.expectClean();
    await context.close();
  });

  it('uses a wall screen: many columns and larger text', async () => {
    const { context, watched, page } = await show({
      viewport: { width: 3840, height: 2160 },
      colorScheme: 'dark',
    });
    const lefts = await page
      .locator('article[data-machine]')
      .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)));
    expect(new Set(lefts).size).toBe(5);
    const size = await page.evaluate(() => getComputedStyle(document.documentElement).fontSize);
    expect(Number.parseFloat(size)).toBeGreaterThan(15);
    await watched.expectClean();
    await context.close();
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, ...SECRETS], dirs: [dir.path] }));
});
