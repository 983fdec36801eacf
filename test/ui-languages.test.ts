import { describe, expect, it } from 'vitest';
import { SECRETS } from './helpers/agent-fixtures.js';
import {
  BOARD_TOKEN,
  card,
  openBoard,
  useBrowserPage,
  type WatchedPage,
} from './helpers/browser.js';
import { pseudoLanguage, untranslated } from './helpers/pseudo-language.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** One key is left out of the pseudo-language on purpose: it must fall back to English. */
const MISSING = 'summary.total';
const pseudo = pseudoLanguage([MISSING]);

describe('UI: languages', () => {
  const dir = tempDir('panoptes-ui-lang-');
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [
        {
          name: 'web1',
          services: { backup: { start: ['true'], stop: ['true'], board: ['start', 'stop'] } },
        },
      ],
      down: ['down1'],
      lang: { zz: pseudo },
    },
    page: false,
  });

  const open = (options: { locale?: string } = {}): Promise<WatchedPage> =>
    ui.open({ viewport: { width: 1400, height: 1000 }, ...options });

  it('offers the board’s languages and defaults to the browser’s language', async () => {
    const watched = await open({ locale: 'de-DE' });
    const { page } = watched;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const select = page.getByRole('combobox', { name: 'Sprache' });
    await select.waitFor();
    expect(await select.locator('option').allTextContents()).toEqual([
      'Deutsch',
      'English',
      'Español',
      'Français',
      '日本語',
      'Pseudo',
    ]);
    expect(await select.inputValue()).toBe('de');
    expect(await page.getByTestId('summary').textContent()).toContain('Läuft: 1');
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(
      await page.getByRole('button', { name: 'backup auf web1 starten', exact: true }).count(),
    ).toBe(1);
    await watched.expectClean();
  });

  it('a chosen language persists over reloads and new tabs, over the browser’s', async () => {
    const watched = await open({ locale: 'de-DE' });
    const { page } = watched;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await page.getByRole('combobox', { name: 'Sprache' }).selectOption('fr');
    await expect
      .poll(() => page.getByTestId('summary').textContent())
      .toContain('En marche\u00a0: 1');
    await page.reload();
    await expect
      .poll(() => page.getByTestId('summary').textContent())
      .toContain('En marche\u00a0: 1');
    expect(await page.getByRole('combobox', { name: 'Langue' }).inputValue()).toBe('fr');
    const other = await page.context().newPage();
    await openBoard(other, ui.fleet.board.url, BOARD_TOKEN);
    await expect
      .poll(() => other.getByTestId('summary').textContent())
      .toContain('En panne\u00a0: 1');
    // Even the sign-in form speaks it (from the catalogue kept by the page).
    await other.getByRole('button', { name: 'Se déconnecter' }).click();
    await other.getByRole('button', { name: 'Se connecter' }).waitFor();
    await watched.expectClean();
  });

  it('every visible string comes from the catalogue; a missing key falls back to English', async () => {
    const watched = await open({ locale: 'en-US' });
    const { page } = watched;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await page.getByRole('combobox', { name: 'Language' }).selectOption('zz');
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('zz');
    await expect.poll(() => card(page, 'web1').locator('.metric').count()).toBe(4);

    // The missing key is English; everything else is the pseudo-language.
    expect(await page.getByTestId('summary').locator('.total').textContent()).toBe('Machines: 2');
    const allowEnglish = (found: string[]) => found.filter((f) => f !== 'text: Machines: 2');
    expect(allowEnglish(await untranslated(page))).toEqual([]);

    // The confirmation, an outcome, and the sign-in page too.
    await page.getByRole('button', { name: '«Start backup on web1»' }).click();
    await page.getByRole('dialog').waitFor();
    expect(allowEnglish(await untranslated(page))).toEqual([]);
    await page.getByRole('button', { name: '«Yes, start backup on web1»' }).click();
    await card(page, 'web1').locator('[data-outcome="done"]').waitFor();
    expect(allowEnglish(await untranslated(page))).toEqual([]);
    await page.getByRole('button', { name: '«Sign out»' }).click();
    await page.getByRole('button', { name: '«Sign in»' }).waitFor();
    expect(await untranslated(page)).toEqual([]);
    await watched.expectClean();
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, ...SECRETS], dirs: [dir.path] }));
});
