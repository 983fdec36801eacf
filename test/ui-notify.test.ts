import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Receiver } from '../src/board/notify/channels/receivers.js';
import { SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, card, openBoard, reportBody, useBrowserPage } from './helpers/browser.js';
import { notifySecrets, scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const HOOK_KEY = 'ui-notify-hook-key-0a1b2c3d4e';

declare global {
  interface Window {
    __notes?: string[];
  }
}

/** Channels and rules shown without secrets, a test per channel, silence, browser notifications. */
describe('UI: notifications', () => {
  const dir = tempDir('panoptes-ui-notify-');
  const hook = new Receiver();
  let notify: { channels: { name: string; url: string }[] } = { channels: [] };

  // Registered before the fixture: the receiver is up before the board, and stops after it.
  beforeAll(async () => {
    await hook.start();
    notify = {
      channels: [{ name: 'hook', url: `http://${hook.host}/panoptes?key=${HOOK_KEY}` }],
    };
  });
  afterAll(async () => {
    await hook.stop();
  });
  const ui = useBrowserPage({
    dir,
    fleet: () => ({
      configured: [],
      board: {
        stale_after: 3,
        notify: { ...notify, rules: [{ events: ['down', 'up', 'bell'], channels: ['hook'] }] },
      },
    }),
    page: { viewport: { width: 1400, height: 1000 } },
  });
  beforeEach(async () => {
    await ui.context.grantPermissions(['notifications'], { origin: ui.fleet.board.url });
    // Records each notification the page raises (headless Chromium shows none).
    await ui.page.addInitScript(() => {
      const Real = window.Notification;
      window.__notes = [];
      class Recorded {
        constructor(title: string, options?: NotificationOptions) {
          window.__notes?.push(`${title}|${options?.body ?? ''}`);
        }
        static get permission() {
          return Real.permission;
        }
        static requestPermission() {
          return Real.requestPermission();
        }
      }
      Object.defineProperty(window, 'Notification', { value: Recorded, configurable: true });
    });
  });

  const lab = (name: string) => `http://${name}.lab:8701`;

  it('shows channels by name and kind (never the address), the rules, and tests a channel', async () => {
    await ui.fleet.report(reportBody('lab1', lab('lab1'), []));
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const panel = page.getByTestId('notify-panel');
    await panel.locator('summary').click();
    await expect
      .poll(() => panel.locator('li[data-channel="hook"]').textContent())
      .toContain('webhook');
    expect(await panel.locator('.rules li').allTextContents()).toEqual([
      'down, up, bell of * → hook',
    ]);
    const html = await page.content();
    expect(html).not.toContain(HOOK_KEY);
    expect(html).not.toContain(hook.host);

    hook.requests.length = 0;
    await page.getByRole('button', { name: 'Send a test message through hook' }).click();
    await expect.poll(() => panel.locator('.test-result').textContent()).toBe('Delivered.');
    // lab1 goes stale meanwhile (stale_after 3 s), so its down may arrive too: count the tests.
    const events = hook.requests.map((r) => JSON.parse(r.body).events[0].event);
    expect(events.filter((e: string) => e === 'test')).toEqual(['test']);

    hook.answer = () => ({ status: 500, body: 'the receiver is broken' });
    // The browser logs the 502 answer as a failed resource: expected here.
    ui.watched.allow(/status of 502/);
    await page.getByRole('button', { name: 'Send a test message through hook' }).click();
    await expect
      .poll(() => panel.locator('.test-result').textContent())
      .toMatch(/^Not delivered: .*answered 500: the receiver is broken/);
    hook.answer = () => ({ status: 200, body: '{}' });
  });

  it('silences a machine from its card, shows it, and ends it', async () => {
    await ui.fleet.report(reportBody('lab2', lab('lab2'), []));
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    const lab2 = card(page, 'lab2');
    await lab2.getByRole('button', { name: 'Silence notifications for lab2' }).click();
    const form = lab2.getByRole('form', { name: 'Silence notifications for lab2' });
    await form.getByLabel('For').selectOption('240');
    await form.getByLabel('Reason').fill('new disk');
    await form.getByRole('button', { name: 'Silence notifications' }).click();
    await expect.poll(() => lab2.getByTestId('silenced').textContent()).toMatch(/Silenced until/);
    // The view is rebuilt on the board's clock (changes coalesced for 250 ms): poll it.
    const silencedFor = async () => {
      const board = await (
        await fetch(`${ui.fleet.board.url}/api/board`, {
          headers: { authorization: `Bearer ${BOARD_TOKEN}` },
        })
      ).json();
      const until = board.machines.find((m: { name: string }) => m.name === 'lab2').silenced_until;
      return until === null ? 0 : Date.parse(until) - Date.now();
    };
    await expect.poll(silencedFor).toBeGreaterThan(230 * 60_000);
    await lab2.getByRole('button', { name: 'End the silence of lab2' }).click();
    await expect.poll(() => lab2.getByTestId('silenced').count()).toBe(0);
  });

  it('raises browser notifications for a machine going down and a bell, once allowed', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await page.getByTestId('notify-panel').locator('summary').click();
    const box = page.getByLabel(/Show browser notifications/);
    await box.check();
    expect(await box.isChecked()).toBe(true);
    // lab3 reports while the page watches, so the page sees it up before it goes down.
    await ui.fleet.report(reportBody('lab3', lab('lab3'), []));
    await expect.poll(() => card(page, 'lab3').getAttribute('data-state')).toBe('up');
    // lab3 stops reporting: stale after 3 s, down.
    await expect.poll(() => card(page, 'lab3').getAttribute('data-state')).toBe('down');
    await expect
      .poll(() => page.evaluate(() => window.__notes ?? []))
      .toContainEqual(expect.stringMatching(/^lab3 is down\|no report for/));
    await ui.fleet.report({
      ...reportBody('lab3', lab('lab3'), []),
      sessions: [
        {
          session: 'claude-7',
          why: 'attention',
          text: 'needs a review',
          at: new Date().toISOString(),
        },
      ],
    });
    await expect
      .poll(() => page.evaluate(() => window.__notes ?? []))
      .toContainEqual('lab3: session claude-7 is waiting for attention|needs a review');
  });

  scanForSecretsAfterAll(() => ({
    secrets: [...SECRETS, ...notifySecrets({ notify })],
    dirs: [dir.path],
  }));
});
