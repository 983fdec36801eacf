import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, card, openBoard, useBrowserPage } from './helpers/browser.js';
import { eventually } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** docs/ui.md shows it; every run of this test takes it again. */
const IMAGES = fileURLToPath(new URL('../docs/images/', import.meta.url));

const english = JSON.parse(
  readFileSync(new URL('../src/board/lang/en.json', import.meta.url), 'utf8'),
) as { messages: Record<string, string> };
/** Every English message wrapped in «…»: text of the inbox not from the catalogue stands out. */
const pseudo = {
  code: 'zz',
  name: 'Pseudo',
  messages: Object.fromEntries(
    Object.entries(english.messages).map(([key, text]) => [key, `«${text}»`]),
  ),
};

const WEBSHOP = 'claude · webshop';
const LONG_SESSION = `codex-${'x'.repeat(120)}`;

describe('UI: the attention inbox', () => {
  const dir = tempDir('panoptes-ui-inbox-');
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [
        { name: 'web1', services: {} },
        { name: 'db2', services: {} },
      ],
      lang: { zz: pseudo },
    },
    page: false,
  });

  const inbox = (page: Page) => page.getByTestId('inbox');
  const rows = (page: Page) => inbox(page).locator('li.inbox-item');
  const rowSessions = (page: Page) =>
    rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-session')));
  const open = async (options: BrowserContextOptions) => {
    const watched = await ui.open(options);
    await openBoard(watched.page, ui.fleet.board.url, BOARD_TOKEN);
    return { context: watched.page.context(), watched, page: watched.page };
  };
  const openSessions = async () => {
    const r = await fetch(`${ui.fleet.board.url}/api/sessions?state=open`, {
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    });
    return ((await r.json()) as { sessions: { session: string }[] }).sessions.map((s) => s.session);
  };

  beforeAll(async () => {
    mkdirSync(IMAGES, { recursive: true });
    await ui.fleet.bell('db2', 'migrate', 'attention', 'Apply migration 0042 to production?');
    await new Promise((r) => setTimeout(r, 5));
    await ui.fleet.bell('web1', WEBSHOP, 'error', 'npm test: 2 tests failed in checkout.spec.ts');
    await new Promise((r) => setTimeout(r, 5));
    await ui.fleet.bell('web1', 'docs', 'finished', 'Docs written');
    await new Promise((r) => setTimeout(r, 5));
    await ui.fleet.bell('db2', LONG_SESSION, 'attention', `Allow ${'y'.repeat(300)}?`);
    await eventually(
      async () => ((await openSessions()).length === 3 ? true : undefined),
      'the board lists the three open sessions',
    );
  });

  it('lists the open sessions, longest waiting first, with their machine, text and wait; the title counts them', async () => {
    const { context, watched, page } = await open({ viewport: { width: 1280, height: 900 } });
    await expect.poll(() => rowSessions(page)).toEqual(['migrate', WEBSHOP, LONG_SESSION]);
    await expect.poll(() => page.title()).toBe('(3) Panoptes');
    expect(await inbox(page).locator('.inbox-count').textContent()).toBe('3 open');
    const first = rows(page).first();
    expect(await first.locator('.inbox-text').textContent()).toBe(
      'Apply migration 0042 to production?',
    );
    expect(await first.locator('.label').textContent()).toBe('Attention:');
    const link = first.getByRole('link', { name: 'db2' });
    expect(await link.getAttribute('href')).toBe('?machine=db2');
    expect(await rows(page).nth(1).locator('.label').textContent()).toBe('Error:');
    // How long it has waited, kept current by the page's clock.
    const waiting = first.locator('[data-waiting]');
    const before = await waiting.textContent();
    expect(before).toMatch(/^(just rang|waiting \d+ (s|min))$/);
    await expect.poll(() => waiting.textContent()).not.toBe(before);
    // The machine link opens the machine's page.
    await link.click();
    await page.getByRole('heading', { name: 'db2', level: 1 }).waitFor();
    await page.goBack();
    await expect.poll(() => rowSessions(page)).toEqual(['migrate', WEBSHOP, LONG_SESSION]);
    await watched.expectClean();
    await context.close();
  });

  it('Acknowledge takes a row out (journaled); a new bell of the session brings it back', async () => {
    const { context, watched, page } = await open({ viewport: { width: 1280, height: 900 } });
    await expect.poll(() => rowSessions(page)).toEqual(['migrate', WEBSHOP, LONG_SESSION]);
    await page.getByRole('button', { name: `Acknowledge ${WEBSHOP} on web1`, exact: true }).click();
    await expect.poll(() => rowSessions(page)).toEqual(['migrate', LONG_SESSION]);
    await expect.poll(() => page.title()).toBe('(2) Panoptes');
    expect(await openSessions()).toEqual(['migrate', LONG_SESSION]);
    // Only sessions nobody acknowledged count: web1 waits for nobody now, db2 still does.
    const attention = page.getByTestId('summary').locator('.sum.attention');
    await expect.poll(() => attention.textContent()).toBe('!Waiting for attention: 1');
    await expect.poll(() => card(page, 'web1').getAttribute('class')).not.toContain('alarm');
    expect(await card(page, 'web1').getByText('Needs attention').count()).toBe(0);
    expect(await card(page, 'db2').getAttribute('class')).toContain('alarm');
    await page
      .locator('#journal li.entry[data-outcome="acknowledged"]')
      .filter({ hasText: `ack web1/${WEBSHOP}` })
      .waitFor();
    // A reload asks the board again: still acknowledged.
    await page.reload();
    await page.getByTestId('summary').waitFor();
    await expect.poll(() => rowSessions(page)).toEqual(['migrate', LONG_SESSION]);
    // The session rings again: it is back, at the end (it has waited least).
    await ui.fleet.bell('web1', WEBSHOP, 'attention', 'One more question');
    await expect.poll(() => rowSessions(page)).toEqual(['migrate', LONG_SESSION, WEBSHOP]);
    await expect.poll(() => page.title()).toBe('(3) Panoptes');
    await expect.poll(() => attention.textContent()).toBe('!Waiting for attention: 2');
    await expect.poll(() => card(page, 'web1').getAttribute('class')).toContain('alarm');
    await watched.expectClean();
    await context.close();
  });

  it('every string of the inbox comes from the catalogue', async () => {
    const { context, watched, page } = await open({ viewport: { width: 1280, height: 900 } });
    await page.getByRole('combobox', { name: 'Language' }).selectOption('zz');
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('zz');
    await expect.poll(() => rows(page).count()).toBe(3);
    const untranslated = await inbox(page).evaluate((root) => {
      const found: string[] = [];
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
        const text = n.textContent ?? '';
        if (!/\p{L}/u.test(text) || n.parentElement?.closest('[translate="no"]')) continue;
        if (!text.includes('«')) found.push(`text: ${text}`);
      }
      for (const el of root.querySelectorAll('[aria-label]')) {
        const label = el.getAttribute('aria-label') ?? '';
        if (!label.includes('«')) found.push(`aria-label: ${label}`);
      }
      return found;
    });
    expect(untranslated).toEqual([]);
    expect(await page.title()).toMatch(/^«\(3\) «Panoptes»»$/);
    await watched.expectClean();
    await context.close();
  });

  it('on a phone: at the top, one column, thumb-sized buttons, no sideways scrolling (screenshot)', async () => {
    const { context, watched, page } = await open({
      viewport: { width: 360, height: 740 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      colorScheme: 'light',
    });
    await expect.poll(() => rows(page).count()).toBe(3);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    // Above the summary and the machines, and in one column.
    const inboxTop = (await inbox(page).boundingBox())?.y ?? Number.POSITIVE_INFINITY;
    const summaryTop = (await page.getByTestId('summary').boundingBox())?.y ?? 0;
    expect(inboxTop).toBeLessThan(summaryTop);
    const lefts = await rows(page).evaluateAll((els) =>
      els.map((e) => Math.round(e.getBoundingClientRect().left)),
    );
    expect(new Set(lefts).size).toBe(1);
    const buttons = await rows(page)
      .locator('button.inbox-ack')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
    for (const b of buttons) {
      expect(b.left).toBeGreaterThanOrEqual(0);
      expect(b.right).toBeLessThanOrEqual(360);
      expect(b.height).toBeGreaterThanOrEqual(44);
      expect(b.width).toBeGreaterThan(250);
    }
    await page.screenshot({ path: `${IMAGES}ui-inbox-phone.png` });
    // One-handed: the first Acknowledge is tapped, the row goes.
    await rows(page).first().locator('button.inbox-ack').tap();
    await expect.poll(() => rows(page).count()).toBe(2);
    await watched.expectClean();
    await context.close();
  });

  it('a session whose name has a /, or is .., is acknowledged from the page', async () => {
    await ui.fleet.bell('db2', 'feature/login', 'attention', 'Push the branch?');
    await ui.fleet.bell('db2', '..', 'attention', 'A name URL rules fold away');
    const { context, watched, page } = await open({ viewport: { width: 1280, height: 900 } });
    await expect.poll(() => rowSessions(page)).toContain('feature/login');
    await page
      .getByRole('button', { name: 'Acknowledge feature/login on db2', exact: true })
      .click();
    await expect.poll(() => rowSessions(page)).not.toContain('feature/login');
    expect(await openSessions()).not.toContain('feature/login');
    await page.getByRole('button', { name: 'Acknowledge .. on db2', exact: true }).click();
    await expect.poll(() => rowSessions(page)).not.toContain('..');
    expect(await openSessions()).not.toContain('..');
    await page
      .locator('#journal li.entry[data-outcome="acknowledged"]')
      .filter({ hasText: 'ack db2/feature/login' })
      .waitFor();
    await watched.expectClean();
    await context.close();
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, ...SECRETS], dirs: [dir.path] }));
});
