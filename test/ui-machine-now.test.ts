import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { BOARD_KEY, SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, card, openBoard, reportBody, useBrowserPage } from './helpers/browser.js';
import {
  container,
  failedSources,
  machineNow,
  type NowAgent,
  nowAgent,
  service,
} from './helpers/machine-now.js';
import { pseudoLanguage, untranslated } from './helpers/pseudo-language.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const IMAGES = fileURLToPath(new URL('../docs/images/', import.meta.url));
const HOSTILE = '<img src=x onerror="window.__pwned=1">';

/** 500 containers (every tenth exited), and 120 more the machine left out of its overview. */
function fiveHundred(): Record<string, unknown> {
  const containers = Array.from({ length: 500 }, (_, i) =>
    container(
      `c-${String(i).padStart(4, '0')}`,
      i % 10 === 3 ? { state: 'exited', cpu: null } : {},
    ),
  );
  return { containers, containers_omitted: 120, services: [service('c-0007', 'container')] };
}

/** Every text a machine sends, made of markup: the page must show it as text. */
function hostile(): Record<string, unknown> {
  return {
    services: [service(`svc${HOSTILE}`.slice(0, 64), 'command')],
    sessions: [
      { session: `s${HOSTILE}`, why: 'attention', text: HOSTILE, at: new Date().toISOString() },
    ],
    containers: [container(HOSTILE, { image: `"><script>window.__pwned=2</script>` })],
    processes: [{ pid: 9, name: '<b>bold</b>', user: '<i>u</i>', cpu: 0.1, mem: 1e6 }],
    net: {
      rx_bps: 1,
      tx_bps: 1,
      interfaces: [{ name: '<u>eth0</u>', rx_bps: 1, tx_bps: 1, rx_bytes: 1, tx_bytes: 1 }],
    },
    temps: [{ label: '<svg onload="window.__pwned=3">', c: 40 }],
    smart: [{ device: '/dev/<x>', model: HOSTILE, passed: true, temp_c: 30, power_on_hours: 1 }],
  };
}

describe('UI: a machine now', () => {
  const dir = tempDir('panoptes-ui-now-');
  const agents = new Map<string, NowAgent>();
  /** When the announced machine first reported (epoch seconds). */
  let labFirstS = 0;
  const ui = useBrowserPage({
    dir,
    fleet: async () => {
      mkdirSync(IMAGES, { recursive: true });
      const fields: Record<string, Record<string, unknown>> = {
        m1: machineNow(),
        big: fiveHundred(),
        odd: hostile(),
        flaky: { containers: [container('api'), container('worker')] },
      };
      for (const [name, f] of Object.entries(fields)) agents.set(name, await nowAgent(name, f));
      return {
        configured: [],
        board: {
          stale_after: 600,
          machines: [...agents].map(([name, a]) => ({ name, url: a.url, key: BOARD_KEY })),
        },
        lang: { zz: pseudoLanguage() },
      };
    },
    page: { viewport: { width: 1400, height: 1100 } },
  });
  afterAll(async () => {
    for (const a of agents.values()) await a.close();
  });

  /** The announced machine: it reports every source as failed. */
  const reportLab = () =>
    ui.fleet.report({ ...reportBody('lab', 'http://127.0.0.1:9/', []), ...failedSources() });

  const openMachine = async (page: Page, name: string, query = '') => {
    await page.goto(
      `${ui.fleet.board.url}/?token=${encodeURIComponent(BOARD_TOKEN)}&machine=${name}${query}`,
    );
    await page.getByRole('heading', { level: 1, name }).waitFor();
    await page.getByTestId('machine-now').waitFor();
  };
  const part = (page: Page, name: string) => page.getByTestId(`now-${name}`);

  it('shows each part of the machine with its values, problems first (screenshot)', async () => {
    const { page } = ui;
    await openMachine(page, 'm1');
    const containers = part(page, 'containers');
    await expect.poll(() => containers.locator('tbody tr').count()).toBe(8);
    expect(await page.getByTestId('containers-count').textContent()).toBe('7 of 8 running');
    // Problems first: the unhealthy db, then the exited cron, then the running ones by name.
    const names = await containers.locator('tbody th').allTextContents();
    expect(names.slice(0, 3)).toEqual(['db', 'cron', 'cache']);
    const web = containers.locator('tr[data-container="web"]');
    expect(await web.textContent()).toContain('nginx:1.27');
    expect(await web.textContent()).toContain('12.5%');
    expect(await web.textContent()).toContain('150 MB / 1 GB');
    expect(await containers.locator('tr[data-container="db"]').getAttribute('class')).toContain(
      'problem',
    );
    // Start/Stop on the published container only, and on its service row as well.
    expect(await web.getByRole('button').allTextContents()).toEqual(['Start', 'Stop']);
    expect(await containers.locator('tr[data-container="db"] button').count()).toBe(0);
    expect(await part(page, 'services').getByRole('button').count()).toBe(4);
    expect(await part(page, 'sessions').textContent()).toContain('refactor-auth');
    expect(await part(page, 'gpus').textContent()).toContain('NVIDIA L40S');

    const byCpu = page.getByTestId('processes-cpu').locator('tbody th');
    expect(await byCpu.allTextContents()).toEqual(['node', 'postgres', 'java', 'kswapd0']);
    const byMem = page.getByTestId('processes-mem').locator('tbody th');
    expect(await byMem.first().textContent()).toBe('java');
    expect(await page.getByTestId('net-rates').textContent()).toMatch(/1\.5 MB\/s.*2\.4 kB\/s/);
    expect(
      await part(page, 'network').locator('tr[data-interface="eth0"]').textContent(),
    ).toContain('9,000 GB');
    const hottest = part(page, 'temps').locator('li.hottest');
    expect(await hottest.count()).toBe(1);
    expect(await hottest.textContent()).toMatch(/coretemp Package id 0\s*81°C/);
    const disks = part(page, 'smart').locator('tbody tr');
    expect(await disks.first().getAttribute('data-disk')).toBe('/dev/sda');
    expect(await disks.first().textContent()).toContain('FAILING');
    expect(await disks.nth(1).textContent()).toContain('12,345');
    await page.getByTestId('machine-now').screenshot({ path: `${IMAGES}ui-machine-now.png` });
  });

  it('starts a published container from its row, through the confirmation', async () => {
    const { page } = ui;
    await openMachine(page, 'm1');
    const web = part(page, 'containers').locator('tr[data-container="web"]');
    await web.getByRole('button', { name: 'Stop web on m1' }).click();
    await page.getByRole('button', { name: 'Yes, stop web on m1' }).click();
    await part(page, 'services').locator('[data-outcome="done"]').waitFor();
    expect(agents.get('m1')?.actions).toEqual(['web/stop']);
  });

  it('renders every text from a machine as text, never as markup', async () => {
    const { page } = ui;
    await openMachine(page, 'odd');
    const now = page.getByTestId('machine-now');
    await part(page, 'containers').locator('tbody tr').first().waitFor();
    const text = (await now.textContent()) ?? '';
    for (const s of [HOSTILE, '<b>bold</b>', '<u>eth0</u>', '<svg onload="window.__pwned=3">']) {
      expect(text).toContain(s);
    }
    expect(await now.locator('img, script, b, u, svg').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('shows why a source could not be read, in its place', async () => {
    const { page } = ui;
    await reportLab();
    labFirstS ||= Math.floor(Date.now() / 1000);
    await openMachine(page, 'lab');
    for (const [name, error] of [
      ['containers', 'connect ENOENT /var/run/docker.sock'],
      ['processes', 'EACCES reading /proc'],
      ['network', 'no /proc/net/dev'],
      ['temps', 'no hwmon sensors readable'],
      ['smart', 'smartctl exited with code 2'],
      ['gpus', 'nvidia-smi timed out after 5 s'],
    ]) {
      const line = page.getByTestId(`now-${name}-error`);
      expect(await line.textContent()).toBe(`Could not be read: ${error}`);
    }
    expect(await part(page, 'containers').locator('table').count()).toBe(0);
  });

  it('keeps 500 containers usable: the first ones, "show all", a filter, and the ones left out', async () => {
    const { page } = ui;
    await openMachine(page, 'big');
    const rows = part(page, 'containers').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(25);
    // Every tenth is exited: those come first.
    expect(await rows.first().getAttribute('class')).toContain('exited');
    expect(await page.getByTestId('containers-omitted').textContent()).toBe(
      'and 120 more, left out of the machine’s report',
    );
    await page.getByRole('button', { name: 'Show all 500' }).click();
    await expect.poll(() => rows.count()).toBe(500);
    await page.getByRole('button', { name: 'Show fewer' }).waitFor();
    await page.getByRole('searchbox', { name: 'Filter containers' }).fill('c-0007');
    await expect.poll(() => rows.count()).toBe(1);
    await rows.getByRole('button', { name: 'Start c-0007 on big' }).click();
    await page.getByRole('button', { name: 'Yes, start c-0007 on big' }).click();
    await expect.poll(() => agents.get('big')?.actions).toEqual(['c-0007/start']);
  });

  it('counts running containers on the card', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const line = card(page, 'm1').getByTestId('card-containers');
    await expect.poll(() => line.textContent()).toBe('containers 7/8');
    expect(await card(page, 'big').getByTestId('card-containers').textContent()).toBe(
      'containers 450/500',
    );
    expect(await card(page, 'lab').getByTestId('card-containers').count()).toBe(0);
  });

  // Needs the board's container_alerts on the machine record.
  it('badges a card whose container stopped or turned unhealthy, naming them', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect
      .poll(() => card(page, 'flaky').getByTestId('card-containers').textContent())
      .toBe('containers 2/2');
    const flaky = agents.get('flaky');
    if (flaky === undefined) throw new Error('no flaky agent');
    flaky.fields = {
      containers: [
        container('api', { health: 'unhealthy' }),
        container('worker', { state: 'exited' }),
      ],
    };
    const badge = card(page, 'flaky').getByTestId('container-alerts');
    await badge.waitFor({ timeout: 15_000 });
    expect(await badge.textContent()).toContain('Containers stopped or unhealthy: 2');
    const title = (await badge.getAttribute('title')) ?? '';
    expect(title).toContain('worker stopped');
    expect(title).toContain('api unhealthy');
    await openMachine(page, 'flaky');
    expect(
      await part(page, 'containers').locator('tr[data-container="worker"]').textContent(),
    ).toContain('stopped after running');
  });

  it('starts a young machine’s charts at its first sample, and draws no latency for an announced one', async () => {
    const { page } = ui;
    await reportLab();
    labFirstS ||= Math.floor(Date.now() / 1000);
    await openMachine(page, 'lab', '&range=24h');
    const plot = page.locator('.chart-plot').first();
    await expect.poll(() => plot.getAttribute('data-x-min')).not.toBeNull();
    const xMin = Number(await plot.getAttribute('data-x-min'));
    // Within one point (24 h / 300) of the first report, not 24 hours back.
    expect(xMin).toBeGreaterThan(labFirstS - 400);
    expect(xMin).toBeLessThanOrEqual(Date.now() / 1000);
    expect(await page.getByTestId('chart-since').first().textContent()).toMatch(/^since /);
    const titles = await page.locator('.chart figcaption').allTextContents();
    expect(titles).toEqual(['CPU', 'Memory', 'Load (1 minute)', 'Fullest disk']);
    // A configured machine is polled: its latency is charted.
    await openMachine(page, 'm1');
    await expect
      .poll(() => page.locator('.chart figcaption').allTextContents())
      .toContain('Poll latency');
  });

  // Needs the board's net_rx, net_tx and temp_max history.
  it('charts the network and the hottest sensor of a machine that has them', async () => {
    const { page } = ui;
    await openMachine(page, 'm1');
    await expect
      .poll(() => page.locator('.chart figcaption').allTextContents())
      .toEqual(expect.arrayContaining(['Network received', 'Network sent', 'Hottest sensor']));
  });

  it('speaks the chosen language in every part; figures follow its locale', async () => {
    const { page } = ui;
    await openMachine(page, 'm1');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('zz');
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('zz');
    await part(page, 'containers').locator('tbody tr').first().waitFor();
    // The parts of this page that show the machine now, and its charts.
    expect(await untranslated(page, '[data-testid="machine-now"], .chart')).toEqual([]);
    await page.getByRole('combobox', { name: '«Language»' }).selectOption('de');
    await expect.poll(() => page.getByTestId('net-rates').textContent()).toMatch(/1,5 MB\/s/);
  });

  it('works on a phone: nothing wider than the screen', async () => {
    const w = await ui.open({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    try {
      await openMachine(w.page, 'm1');
      await part(w.page, 'containers').locator('tbody tr').first().waitFor();
      const overflow = await w.page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await w.expectClean();
    } finally {
      await w.page.context().close();
    }
  });

  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, ...SECRETS], dirs: [dir.path] }));
});
