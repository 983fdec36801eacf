import { afterAll, describe, expect, it } from 'vitest';
import { type PodmanHarness, startPodman } from '../harness/podman.js';
import { Receiver } from '../src/board/notify/channels/receivers.js';
import { BOARD_TOKEN, card, openBoard, useBrowserPage } from './helpers/browser.js';
import { eventually } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

interface HookEvent {
  event: string;
  machine: string;
  container?: string;
  problem?: string;
  recovered?: boolean;
}

/**
 * Containers from a real Podman to everything the board does with them: a real agent reads the
 * engine's socket, the board polls it, and the page (Chromium), a webhook receiver and /metrics
 * show what happens when a container is stopped behind the board's back, or from the page.
 */
describe('containers on a real Podman: the page, the notifications and /metrics', () => {
  const dir = tempDir('panoptes-podman-ui-');
  const hook = new Receiver();
  let podman: PodmanHarness | undefined;
  const ui = useBrowserPage({
    dir,
    fleet: async () => {
      podman = await startPodman();
      // `web` is published (as the service `site`) for start and stop; `cache` is only listed.
      await Promise.all([podman.run('web'), podman.run('cache')]);
      await hook.start();
      return {
        configured: [
          {
            name: 'box',
            services: { site: { container: 'web', board: ['start', 'stop'], stop_grace: 1 } },
            extra: { containers: { socket: podman.socket }, sample_interval: 1 },
          },
        ],
        board: {
          notify: {
            timeout: 2,
            channels: [{ name: 'hook', url: `http://${hook.host}/panoptes` }],
            rules: [{ events: ['container'], channels: ['hook'] }],
          },
        },
      };
    },
    page: { viewport: { width: 1400, height: 1000 } },
  });
  afterAll(async () => {
    await podman?.close();
    await hook.stop();
  });

  const engine = () => {
    if (podman === undefined) throw new Error('no podman');
    return podman;
  };
  const status = async (name: string) =>
    ((await engine().inspect(name)).State as { Status: string }).Status;
  const events = (): HookEvent[] =>
    hook.requests.flatMap((r) => (JSON.parse(r.body) as { events: HookEvent[] }).events);
  const metric = async (container: string) => {
    const r = await fetch(`${ui.fleet.board.url}/metrics`, {
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    });
    const line = (await r.text())
      .split('\n')
      .find((l) => l.startsWith(`panoptes_container_up{machine="box",container="${container}"}`));
    return line?.split(' ').at(-1);
  };
  const openMachine = async (name: string) => {
    const { page } = ui;
    await page.goto(
      `${ui.fleet.board.url}/?token=${encodeURIComponent(BOARD_TOKEN)}&machine=${name}`,
    );
    await page.getByTestId('machine-now').waitFor();
  };

  it('the card counts the engine’s containers and the page lists them, buttons only on the published one', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect
      .poll(() => card(page, 'box').getByTestId('card-containers').textContent(), {
        timeout: 30_000,
      })
      .toBe('containers 2/2');
    await openMachine('box');
    const rows = page.getByTestId('now-containers').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const web = page.getByTestId('now-containers').locator('tr[data-container="web"]');
    const cache = page.getByTestId('now-containers').locator('tr[data-container="cache"]');
    expect(await web.textContent()).toContain('localhost/panoptes-test:1');
    expect(await web.getByRole('button').count()).toBeGreaterThan(0);
    expect(await cache.getByRole('button').count()).toBe(0);
    expect(await metric('cache')).toBe('1');
  });

  it('a container stopped behind the board’s back is notified, badged and exported, then its recovery', async () => {
    const { page } = ui;
    await engine().podman(['stop', '-t', '0', 'cache']);
    const sent = await eventually(
      async () => events().find((e) => e.container === 'cache' && e.recovered !== true),
      'the container event at the webhook',
    );
    expect(sent).toMatchObject({ event: 'container', machine: 'box', problem: 'stopped' });
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const badge = card(page, 'box').getByTestId('container-alerts');
    await badge.waitFor({ timeout: 15_000 });
    expect(await badge.getAttribute('title')).toContain('cache');
    expect(await metric('cache')).toBe('0');

    await engine().podman(['start', 'cache']);
    await eventually(
      async () => events().find((e) => e.container === 'cache' && e.recovered === true),
      'the recovery at the webhook',
    );
    await expect.poll(() => badge.count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => metric('cache'), { timeout: 15_000 }).toBe('1');
  });

  it('Stop and Start on the page stop and start the published container in the engine', async () => {
    const { page } = ui;
    await openMachine('box');
    const web = page.getByTestId('now-containers').locator('tr[data-container="web"]');
    await web.getByRole('button', { name: 'Stop site on box' }).click();
    await page.getByRole('button', { name: 'Yes, stop site on box' }).click();
    await expect.poll(() => status('web'), { timeout: 20_000 }).toBe('exited');
    // The board saw it stop: not behind its back, but a container that stopped all the same.
    await expect
      .poll(() => web.getByRole('button', { name: 'Start site on box' }).count(), {
        timeout: 20_000,
      })
      .toBe(1);
    await web.getByRole('button', { name: 'Start site on box' }).click();
    await page.getByRole('button', { name: 'Yes, start site on box' }).click();
    await expect.poll(() => status('web'), { timeout: 20_000 }).toBe('running');
    const journaled = async () => {
      const r = await fetch(`${ui.fleet.board.url}/api/journal?limit=20`, {
        headers: { authorization: `Bearer ${BOARD_TOKEN}` },
      });
      const { entries } = (await r.json()) as {
        entries: { op: string; target: string; outcome: string }[];
      };
      return entries
        .filter((e) => e.target.startsWith('box'))
        .map((e) => `${e.op} ${e.target} ${e.outcome}`);
    };
    await expect
      .poll(journaled, { timeout: 15_000 })
      .toEqual(expect.arrayContaining(['do box/site/stop done', 'do box/site/start done']));
  });
});
