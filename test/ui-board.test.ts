import { beforeAll, describe, expect, it } from 'vitest';
import { SECRETS } from './helpers/agent-fixtures.js';
import {
  BOARD_TOKEN,
  card,
  openBoard,
  recordRequests,
  reportBody,
  useBrowserPage,
} from './helpers/browser.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

interface BoardMachine {
  name: string;
  location: string;
  error: string | null;
}

/** The board itself: cards, summary, filters, sessions, and live updates. */
describe('UI: the board', () => {
  const dir = tempDir('panoptes-ui-board-');
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [
        {
          name: 'web1',
          services: {
            backup: { start: ['true'], stop: ['true'], board: ['start', 'stop'] },
          },
        },
        { name: 'db2', services: { vacuum: { start: ['true'], board: ['start'] } } },
      ],
      down: ['down1'],
    },
    page: { viewport: { width: 1400, height: 1000 } },
  });
  beforeAll(async () => {
    // An announced machine the test plays: it reports once and then stays as it is.
    await ui.fleet.report(
      reportBody('lab4', 'http://lab4.example:8701/', [{ name: 'train', board: ['start'] }]),
    );
  });

  const boardView = async (): Promise<BoardMachine[]> => {
    const r = await fetch(`${ui.fleet.board.url}/api/board`, {
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    });
    return ((await r.json()) as { machines: BoardMachine[] }).machines;
  };

  it('shows one card per machine: name, state in words and colour, origin, location, last seen, load', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(() => page.locator('article[data-machine]').count()).toBe(4);
    await expect.poll(() => card(page, 'web1').getAttribute('data-state')).toBe('up');
    const view = await boardView();

    const web1 = card(page, 'web1');
    expect(await web1.locator('h3').textContent()).toBe('web1');
    expect(await web1.locator('.state-badge').textContent()).toBe('▲Up');
    expect(await web1.locator('.origin').textContent()).toBe('configured');
    const link = web1.getByRole('link', { name: /^Open web1 at / });
    const location = view.find((m) => m.name === 'web1')?.location ?? '';
    expect(await link.getAttribute('href')).toBe(new URL(location).href);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect((await link.getAttribute('rel'))?.split(' ')).toEqual(
      expect.arrayContaining(['noopener', 'noreferrer']),
    );
    expect(await web1.locator('.seen').textContent()).toMatch(/^Seen (just now|\d+ s ago)$/);
    const metrics = await web1.locator('.metric-label').allTextContents();
    expect(metrics).toEqual(['CPU', 'Load', 'Memory', 'Disk']);
    for (const value of await web1.locator('.metric-value').allTextContents()) {
      expect(value).toMatch(/^\d/);
    }
    expect(await web1.locator('.machine-error').count()).toBe(0);

    // Down is said in words, with its own shape, and the error text is shown.
    const down1 = card(page, 'down1');
    expect(await down1.getAttribute('data-state')).toBe('down');
    expect(await down1.locator('.state-badge').textContent()).toBe('✖Down');
    const error = view.find((m) => m.name === 'down1')?.error ?? '';
    expect(error).not.toBe('');
    expect(await down1.locator('.machine-error').textContent()).toBe(`Error: ${error}`);
    expect(await down1.locator('.seen').textContent()).toBe('Never seen');
    const border = (name: string) =>
      card(page, name).evaluate((el) => getComputedStyle(el).borderTopWidth);
    expect(await border('down1')).not.toBe(await border('web1'));

    // The announced machine says so.
    expect(await card(page, 'lab4').locator('.origin').textContent()).toBe('announced');
    expect(await page.getByTestId('summary').textContent()).toBe(
      'Machines: 4▲Up: 3✖Down: 1!Waiting for attention: 0',
    );
  });

  it('"last seen" counts up live, without any message from the board', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const seen = card(page, 'lab4').locator('[data-ago]');
    await seen.waitFor();
    const first = await seen.textContent();
    await expect.poll(() => seen.textContent(), { timeout: 5000 }).not.toBe(first);
    expect(await seen.textContent()).toMatch(/^\d+ s ago$/);
  });

  it('text filter, state filter and sort live in the address and survive a reload', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const names = () => page.locator('article[data-machine] h3').allTextContents();
    await expect.poll(names).toEqual(['db2', 'down1', 'lab4', 'web1']);

    await page.getByLabel('Sort by').selectOption('state');
    await expect.poll(names).toEqual(['down1', 'db2', 'lab4', 'web1']);
    await page.getByLabel('Filter machines').fill('WEB');
    await expect.poll(names).toEqual(['web1']);
    await expect.poll(() => new URL(page.url()).search).toBe('?q=WEB&sort=state');

    await page.reload();
    await page.getByTestId('summary').waitFor();
    await expect.poll(names).toEqual(['web1']);
    expect(await page.getByLabel('Filter machines').inputValue()).toBe('WEB');
    expect(await page.getByLabel('Sort by').inputValue()).toBe('state');

    await page.getByLabel('Filter machines').fill('');
    await page.getByLabel('Show', { exact: true }).selectOption('down');
    await expect.poll(names).toEqual(['down1']);
    await expect.poll(() => new URL(page.url()).search).toBe('?state=down&sort=state');
    await page.getByLabel('Show', { exact: true }).selectOption('up');
    await expect.poll(names).toEqual(['db2', 'lab4', 'web1']);
    // Hosts and services are searched too.
    await page.getByLabel('Show', { exact: true }).selectOption('all');
    await page.getByLabel('Filter machines').fill('train');
    await expect.poll(names).toEqual(['lab4']);
    await page.getByLabel('Filter machines').fill('nothing-matches-this');
    await page.getByTestId('empty').waitFor();
  });

  it('a session wanting attention makes its machine stand out, shows its text, and counts in the title', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(() => page.title()).toBe('Panoptes');

    await ui.fleet.bell('db2', 'claude-7', 'attention', 'Approve the schema migration?');
    const db2 = card(page, 'db2');
    await expect.poll(() => db2.getAttribute('class')).toContain('alarm');
    expect(await db2.locator('.alarm-badge').textContent()).toBe('! Needs attention');
    expect(await db2.locator('.bell').textContent()).toBe(
      'Attention: claude-7Approve the schema migration?',
    );
    await expect.poll(() => page.title()).toBe('(1) Panoptes');

    await ui.fleet.bell('web1', 'codex-2', 'error', 'Tests failed: 3 of 120');
    await expect.poll(() => page.title()).toBe('(2) Panoptes');
    expect(await card(page, 'web1').locator('.bell.error').textContent()).toContain(
      'Tests failed: 3 of 120',
    );
    expect(await page.getByTestId('summary').textContent()).toContain('Waiting for attention: 2');
    await page.getByLabel('Show', { exact: true }).selectOption('attention');
    await expect
      .poll(() => page.locator('article[data-machine] h3').allTextContents())
      .toEqual(['db2', 'web1']);

    // A finished bell is the session's latest: it no longer asks for anyone.
    await ui.fleet.bell('db2', 'claude-7', 'finished', 'Migration done');
    await expect.poll(() => page.title()).toBe('(1) Panoptes');
    await ui.fleet.bell('web1', 'codex-2', 'finished', 'Fixed');
    await expect.poll(() => page.title()).toBe('Panoptes');
    expect(await page.locator('article.alarm').count()).toBe(0);
  });

  it('live updates patch only the machine that changed, with no polling while the socket is up', async () => {
    const { page } = ui;
    const requests = recordRequests(page);
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(() => page.locator('[data-status="live"]').count()).toBe(1);
    // Watch lab4's card (it does not change) for any DOM change other than its ticking clock.
    await card(page, 'lab4').evaluate((el) => {
      const w = window as { mutations?: string[] };
      w.mutations = [];
      (el as { marked?: boolean }).marked = true;
      new MutationObserver((records) => {
        for (const r of records) {
          const node = r.target instanceof Element ? r.target : r.target.parentElement;
          if (node?.closest('[data-ago]')) continue;
          w.mutations?.push(`${r.type} ${node?.className ?? ''}`);
        }
      }).observe(el, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    const boardFetches = () => requests.filter((r) => r.url.endsWith('/api/board')).length;
    expect(boardFetches()).toBe(1);

    await ui.fleet.bell('db2', 'sess-live', 'attention', 'live patch probe');
    await expect.poll(() => card(page, 'db2').locator('.bell').count()).toBe(1);
    // A second change of another machine arrives the same way.
    await ui.fleet.report(
      reportBody('lab5', 'http://lab5.example:8701/', [{ name: 'etl', board: ['start'] }]),
    );
    await card(page, 'lab5').waitFor();

    expect(await page.evaluate(() => (window as { mutations?: string[] }).mutations)).toEqual([]);
    expect(await card(page, 'lab4').evaluate((el) => (el as { marked?: boolean }).marked)).toBe(
      true,
    );
    expect(boardFetches()).toBe(1);
    const polled = requests.filter(
      (r) => r.method === 'GET' && /\/api\/(board|journal)/.test(r.url),
    );
    expect(polled.map((r) => new URL(r.url).pathname)).toEqual(['/api/board', '/api/journal']);
    await ui.fleet.bell('db2', 'sess-live', 'finished', 'done');
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, ...SECRETS], dirs: [dir.path] }));
});
