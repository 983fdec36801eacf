import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PushService, type Subscriber } from '../harness/push-service.js';
import { subscriptionId } from '../src/board/notify/push.js';
import { SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, openBoard, useBrowserPage } from './helpers/browser.js';
import { eventually } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const SUBJECT = 'mailto:ops@example.org';

declare global {
  interface Window {
    __push?: { asked: number; key: string | null; subscribed: boolean };
  }
}

/**
 * Replaces only the browser's link to its push service: PushManager.subscribe and
 * getSubscription answer a subscription the test made (a real key pair and auth secret, whose
 * endpoint is the test's push service). Headless Chromium cannot subscribe for real: it has no
 * push service to reach (and none at all in a fresh profile). The permission prompt, the service
 * worker, the board's key and the POST to the board are the page's own.
 */
async function stubPushManager(page: Page, subscription: Subscriber['json']): Promise<void> {
  await page.addInitScript((json) => {
    const state = { asked: 0, key: null as string | null, subscribed: false };
    window.__push = state;
    const ask = Notification.requestPermission.bind(Notification);
    Notification.requestPermission = () => {
      state.asked += 1;
      return ask();
    };
    const fake = (key: ArrayBuffer | null) => ({
      endpoint: json.endpoint,
      expirationTime: null,
      options: { applicationServerKey: key, userVisibleOnly: true },
      toJSON: () => json,
      unsubscribe: async () => {
        state.subscribed = false;
        return true;
      },
    });
    let kept: ReturnType<typeof fake> | null = null;
    PushManager.prototype.subscribe = async function subscribe(
      options?: PushSubscriptionOptionsInit,
    ) {
      const key = options?.applicationServerKey as Uint8Array;
      state.key = btoa(String.fromCharCode(...key))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
      state.subscribed = true;
      kept = fake(key.slice().buffer);
      return kept as unknown as PushSubscription;
    };
    PushManager.prototype.getSubscription = async function getSubscription() {
      return (state.subscribed ? kept : null) as unknown as PushSubscription | null;
    };
  }, subscription);
}

/** "Notify this browser": Web Push from the board page, and the board's service worker. */
describe('UI: Notify this browser (Web Push)', () => {
  const dir = tempDir('panoptes-ui-push-');
  const service = new PushService(SUBJECT);
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [{ name: 'lab3', services: {} }],
      board: {
        push: { subject: SUBJECT, allow_http_endpoints: true, allow_private_endpoints: true },
        notify: {
          channels: [{ name: 'phone', url: 'webpush://' }],
          rules: [{ events: ['bell'], channels: ['phone'] }],
        },
      },
    },
    page: { viewport: { width: 1200, height: 900 } },
  });
  let subscriber: Subscriber;
  let renewed: Subscriber | undefined;

  const api = async (path: string) =>
    (
      await fetch(`${ui.fleet.board.url}${path}`, {
        headers: { authorization: `Bearer ${BOARD_TOKEN}` },
      })
    ).json() as Promise<Record<string, unknown>>;

  beforeAll(async () => {
    await service.start();
    subscriber = service.subscriber();
  });
  afterAll(async () => {
    await service.stop();
  });
  beforeEach(async () => {
    await ui.context.grantPermissions(['notifications'], { origin: ui.fleet.board.url });
  });

  const openPanel = async (page: Page) => {
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await page.getByTestId('notify-panel').locator('summary').click();
    return page.getByTestId('push-control');
  };

  it('registers the service worker under the page CSP; the browser itself cannot subscribe here', async () => {
    const { page } = ui.watched;
    const control = await openPanel(page);
    await expect.poll(() => control.getAttribute('data-state')).toBe('off');
    // What headless Chromium says of PushManager.subscribe in a fresh context (no push service).
    ui.watched.allow(/Push API|incognito/);
    await control.getByRole('button', { name: 'Notify this browser' }).click();
    await expect
      .poll(() => control.getByRole('alert').textContent())
      .toMatch(/^This browser could not be subscribed: /);
    const worker = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration('/');
      return {
        script: registration?.active?.scriptURL ?? null,
        scope: registration?.scope ?? null,
      };
    });
    expect(worker).toEqual({
      script: `${ui.fleet.board.url}/sw.js`,
      scope: `${ui.fleet.board.url}/`,
    });
    const sw = await fetch(`${ui.fleet.board.url}/sw.js`);
    expect(sw.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(sw.headers.get('content-security-policy')).toContain('trusted-types panoptes-sw');
  });

  it('with only PushManager stubbed: asks, subscribes with the board key, posts it; a bell reaches the push service and the worker shows it', async () => {
    const { page } = ui.watched;
    await stubPushManager(page, subscriber.json);
    const control = await openPanel(page);
    await control.getByRole('button', { name: 'Notify this browser' }).click();
    await expect.poll(() => control.getAttribute('data-state')).toBe('on');
    expect(await control.getByRole('status').textContent()).toBe('This browser is notified.');
    const { public_key } = await api('/api/push/key');
    expect(await page.evaluate(() => window.__push)).toEqual({
      asked: 1,
      key: public_key,
      subscribed: true,
    });

    // A real agent's session rings; the board sends it to the subscription the page posted.
    await ui.fleet.bell(
      'lab3',
      'claude-7',
      'attention',
      'Claude needs your permission to use Bash',
    );
    const [got] = await eventually(
      async () => (service.to(subscriber).length > 0 ? service.to(subscriber) : undefined),
      'the bell at the push service',
      20_000,
    );
    expect(service.problems).toEqual([]);
    expect(got?.payload).toEqual({
      title: 'Panoptes: lab3 bell',
      body: '! lab3: session claude-7 needs attention: Claude needs your permission to use Bash',
      machine: 'lab3',
      session: 'claude-7',
      url: '/?q=lab3',
    });

    // The decrypted message, handed to the board's real service worker as its push event
    // (DevTools' ServiceWorker.deliverPushMessage stands in for the push service's connection).
    // What the worker asks the browser to show is read from inside the worker: headless
    // Chromium's getNotifications() sometimes lists nothing after showNotification resolved
    // (the second, identical message is then listed), so it cannot be the test's witness.
    const [worker] = ui.context.serviceWorkers();
    if (worker === undefined) throw new Error('no service worker in the context');
    await worker.evaluate(() => {
      const registration = (self as unknown as { registration: ServiceWorkerRegistration })
        .registration;
      const show = registration.showNotification.bind(registration);
      const seen: string[] = [];
      (self as unknown as { __shown: string[] }).__shown = seen;
      registration.showNotification = (title: string, options?: NotificationOptions) =>
        show(title, options).then(
          () => {
            const data = options?.data as { url: string };
            seen.push([title, options?.body, options?.tag, data.url].join('|'));
          },
          (error: unknown) => {
            seen.push(`refused: ${String(error)}`);
          },
        );
    });
    const cdp = await ui.context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e) =>
      registrations.push(...e.registrations),
    );
    await cdp.send('ServiceWorker.enable');
    const registrationId = await eventually(
      async () =>
        registrations.find((r) => r.scopeURL === `${ui.fleet.board.url}/` && !r.isDeleted)
          ?.registrationId,
      'the registration',
    );
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: ui.fleet.board.url,
      registrationId,
      data: JSON.stringify(got?.payload),
    });
    await expect
      .poll(() => worker.evaluate(() => (self as unknown as { __shown: string[] }).__shown))
      .toEqual([
        `Panoptes: lab3 bell|! lab3: session claude-7 needs attention: Claude needs your permission to use Bash|panoptes:lab3:claude-7|${ui.fleet.board.url}/?q=lab3`,
      ]);

    await control.getByRole('button', { name: 'Stop notifying this browser' }).click();
    await expect.poll(() => control.getAttribute('data-state')).toBe('off');
    const journal = (await api('/api/journal?limit=50')).entries as { outcome: string }[];
    expect(journal.map((e) => e.outcome)).toEqual(
      expect.arrayContaining(['subscribed', 'unsubscribed']),
    );
  });

  it('the worker renews a subscription its push service replaced (pushsubscriptionchange): the same key, the new one on the board, the old one gone', async () => {
    const { page } = ui.watched;
    const before = service.subscriber();
    renewed = service.subscriber();
    await stubPushManager(page, before.json);
    const control = await openPanel(page);
    await control.getByRole('button', { name: 'Notify this browser' }).click();
    await expect.poll(() => control.getAttribute('data-state')).toBe('on');
    const worker = await eventually(
      async () => ui.context.serviceWorkers()[0],
      'the service worker',
    );
    const { public_key } = await api('/api/push/key');

    // Inside the real worker only its link to a push service is replaced (headless Chromium has
    // none): subscribe answers the new subscription and notes the key it was asked with.
    // Chromium never fires the event by itself, so it is dispatched, its waitUntil kept.
    const key = await worker.evaluate(async (json) => {
      let asked = '';
      PushManager.prototype.subscribe = async function subscribe(options) {
        const bytes = new Uint8Array(options?.applicationServerKey as ArrayBuffer);
        asked = btoa(String.fromCharCode(...bytes))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
        return { endpoint: json.endpoint, toJSON: () => json } as unknown as PushSubscription;
      };
      const Extendable = (globalThis as unknown as { ExtendableEvent: typeof Event })
        .ExtendableEvent;
      const event = new Extendable('pushsubscriptionchange');
      const waits: Promise<unknown>[] = [];
      Object.defineProperty(event, 'waitUntil', { value: (p: Promise<unknown>) => waits.push(p) });
      self.dispatchEvent(event);
      await Promise.all(waits);
      return asked;
    }, renewed.json);
    expect(key).toBe(public_key);

    // The board sends to the new subscription, and no longer to the old one.
    const sent = await fetch(`${ui.fleet.board.url}/api/notify/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOARD_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'phone' }),
    });
    expect(sent.status).toBe(200);
    expect(service.to(renewed).map((d) => d.payload.title)).toEqual(['Panoptes: test']);
    expect(service.hits.get(before.id)).toBeUndefined();
    const old = await fetch(
      `${ui.fleet.board.url}/api/push/subscriptions/${subscriptionId(before.json.endpoint)}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${BOARD_TOKEN}` } },
    );
    expect(old.status).toBe(404);
    const journal = (await api('/api/journal?limit=50')).entries as { outcome: string }[];
    expect(journal.map((e) => e.outcome)).toContain('renewed');

    // "Stop notifying" deletes the subscription the worker put in place.
    await control.getByRole('button', { name: 'Stop notifying this browser' }).click();
    await expect.poll(() => control.getAttribute('data-state')).toBe('off');
    const none = await fetch(`${ui.fleet.board.url}/api/notify/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOARD_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'phone' }),
    });
    expect(((await none.json()) as { detail: string }).detail).toMatch(/no browser is subscribed/);
  });

  scanForSecretsAfterAll(() => ({
    secrets: [
      ...SECRETS,
      subscriber.id,
      subscriber.json.keys.auth,
      ...(renewed === undefined ? [] : [renewed.id, renewed.json.keys.auth]),
    ],
  }));
});
