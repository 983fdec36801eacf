import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Sample, WriteBatch } from '../src/board/history/history-store.js';
import { openLibsqlHistory } from '../src/board/store/sqlite/history-store.js';
import { SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, card, openBoard, reportBody, useBrowserPage } from './helpers/browser.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const IMAGES = fileURLToPath(new URL('../docs/images/', import.meta.url));

/**
 * Thirty days of a machine's past, written into the board's history file before the board
 * starts (the board then records on top of it): hourly and 5-minute aggregates, a day of raw
 * samples each minute, and an outage of an hour two days ago.
 */
async function seedHistory(file: string, name: string): Promise<void> {
  const store = openLibsqlHistory(file);
  const now = Math.floor(Date.now() / 1000);
  const wave = (t: number, base: number, amp: number) =>
    Math.min(1, Math.max(0, base + amp * Math.sin(t / 20_000) + 0.05 * Math.sin(t / 1300)));
  const sample = (t: number, n: number, up: number): Sample => {
    const cpu = up === 0 ? null : wave(t, 0.35, 0.25);
    const values = {
      cpu,
      mem: up === 0 ? null : wave(t + 9e4, 0.55, 0.1),
      load: cpu === null ? null : cpu * 4,
      disk: up === 0 ? null : 0.62 + (t - now) / 3e8,
      latency_ms: up === 0 ? null : 2 + 3 * wave(t, 0.3, 0.3),
      bells: 0,
      // No GPUs on this machine: the page shows no GPU charts.
      gpu_util: null,
      gpu_mem: null,
      net_rx: null,
      net_tx: null,
      temp_max: null,
    };
    return {
      t,
      n,
      up,
      avg: values,
      max: { ...values, cpu: cpu === null ? null : Math.min(1, cpu + 0.2) },
    };
  };
  const outageFrom = now - 2 * 86_400;
  const upAt = (t: number) => (t >= outageFrom && t < outageFrom + 3600 ? 0 : 1);
  const samples: WriteBatch['samples'] = [];
  for (let t = now - 30 * 86_400; t < now - 3600; t += 3600)
    samples.push({ tier: 'h1', name, sample: sample(t, 720, upAt(t)) });
  for (let t = now - 7 * 86_400; t < now - 300; t += 300)
    samples.push({ tier: 'm5', name, sample: sample(t, 60, upAt(t)) });
  for (let t = now - 86_400; t < now - 60; t += 60)
    samples.push({ tier: 'raw', name, sample: sample(t, 1, upAt(t)) });
  await store.write({
    samples,
    events: [
      { name, at: (now - 30 * 86_400) * 1000, state: 'up', previous: null, reason: null },
      {
        name,
        at: outageFrom * 1000,
        state: 'down',
        previous: 'up',
        reason: 'connect ECONNREFUSED 10.0.0.7:8701',
      },
      { name, at: (outageFrom + 3600) * 1000, state: 'up', previous: 'down', reason: null },
    ],
    forget: [],
    cutoffs: { raw: 0, m5: 0, h1: 0 },
  });
  await store.close();
}

/** The machine page: charts, range, zoom, strip, uptime and state changes; late in amber. */
describe('UI: history', () => {
  const dir = tempDir('panoptes-ui-history-');
  const ui = useBrowserPage({
    dir,
    fleet: async () => {
      // The board reads its history file at start: seeded before the fleet starts.
      mkdirSync(IMAGES, { recursive: true });
      mkdirSync(`${dir.path}/board/data`, { recursive: true });
      await seedHistory(`${dir.path}/board/data/history.db`, 'web1');
      return {
        configured: [{ name: 'web1', services: { backup: { start: ['true'], board: ['start'] } } }],
        board: { stale_after: 600 },
      };
    },
    page: { viewport: { width: 1400, height: 1100 } },
  });

  const openMachine = async (page: Page) => {
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await card(page, 'web1').getByRole('link', { name: /web1/ }).first().click();
    await page.getByRole('heading', { level: 1, name: 'web1' }).waitFor();
    await page.locator('.chart canvas').first().waitFor();
  };

  it('shows uptime on each card and opens a machine page with its own URL, charts under the CSP', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    // The outage of an hour two days ago: 24 h is whole, 7 days is not.
    await expect
      .poll(() => card(page, 'web1').getByTestId('card-uptime').textContent())
      .toMatch(/100/);
    await openMachine(page);
    expect(new URL(page.url()).searchParams.get('machine')).toBe('web1');
    expect(page.url()).not.toContain(BOARD_TOKEN);
    expect(await page.locator('.chart canvas').count()).toBeGreaterThanOrEqual(5);
    // Network and temperature charts follow when the agent reports them (from its start on).
    const titles = await page.locator('.chart figcaption').allTextContents();
    expect(titles.slice(0, 5)).toEqual([
      'CPU',
      'Memory',
      'Load (1 minute)',
      'Fullest disk',
      'Poll latency',
    ]);
    // The uptime figures come in their own answer, which may land after the charts.
    const figures = page.getByTestId('uptime').locator('dd');
    await expect.poll(() => figures.first().textContent()).toBe('100 %');
    const uptime = await figures.allTextContents();
    expect(Number.parseFloat(uptime[1] ?? '')).toBeGreaterThan(99);
    expect(Number.parseFloat(uptime[1] ?? '')).toBeLessThan(100);
    const changes = page.getByTestId('state-changes');
    await expect.poll(() => changes.locator('tbody tr').count()).toBeGreaterThanOrEqual(3);
    expect(await changes.textContent()).toContain('ECONNREFUSED');
    // A reload of that address opens the same page; Back returns to the board.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'web1' }).waitFor();
    await page.goBack();
    await page.getByTestId('summary').waitFor();
  });

  it('picks a range, zooms by dragging across a chart and zooms back out (screenshot)', async () => {
    const { page } = ui;
    await openMachine(page);
    await page.getByRole('button', { name: '7d' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('range')).toBe('7d');
    expect(await page.getByRole('button', { name: '7d' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    // Seven days of the strip: the outage two days ago shows as a down (or partly down) cell.
    await expect
      .poll(() => page.locator('.up-strip .cell.down, .up-strip .cell.partial').count())
      .toBeGreaterThan(0);
    await page.screenshot({ path: `${IMAGES}ui-history.png` });
    const plot = page.locator('.chart .u-over').first();
    // The machine's now stands above the charts: the mouse reaches only what is on screen.
    await plot.scrollIntoViewIfNeeded();
    const box = await plot.boundingBox();
    if (box === null) throw new Error('no chart');
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    await page.getByTestId('zoom-window').waitFor();
    // The address is written by an effect after the render that shows the window.
    await expect.poll(() => new URL(page.url()).searchParams.has('from')).toBe(true);
    const zoomed = new URL(page.url()).searchParams;
    const from = Number(zoomed.get('from'));
    const to = Number(zoomed.get('to'));
    // A fifth of seven days, give or take the chart's edges.
    expect(to - from).toBeGreaterThan(0.1 * 7 * 86_400);
    expect(to - from).toBeLessThan(0.3 * 7 * 86_400);
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('range')).toBe('7d');
  });

  it('works on a phone: no sideways scrolling (screenshot)', async () => {
    const w = await ui.open({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    try {
      await openMachine(w.page);
      const overflow = await w.page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await w.page.screenshot({ path: `${IMAGES}ui-history-phone.png`, fullPage: true });
      await w.expectClean();
    } finally {
      await w.page.context().close();
    }
  });

  it('shows an announced machine that misses two of its intervals as late, in amber', async () => {
    const { page } = ui;
    await ui.fleet.report({ ...reportBody('lab9', 'http://127.0.0.1:9/', []), interval_s: 1 });
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const badge = card(page, 'lab9').getByTestId('late-badge');
    await badge.waitFor({ timeout: 15_000 });
    expect(await card(page, 'lab9').getAttribute('data-state')).toBe('up');
    const color = await badge.evaluate((e) => getComputedStyle(e).color);
    const warn = await page.evaluate(() => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--warn)';
      document.body.append(probe);
      const c = getComputedStyle(probe).color;
      probe.remove();
      return c;
    });
    expect(color).toBe(warn);
    expect(await card(page, 'lab9').evaluate((e) => e.classList.contains('late'))).toBe(true);
  });

  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, ...SECRETS], dirs: [dir.path] }));
});
