/*
 * The board's service worker (registered by "Notify this browser", scope /): shows each Web Push
 * message of the board's webpush channels, and opens the board (focusing a tab of it when one is
 * open) when the notification is clicked. The payload is JSON: title, body, machine, session, url
 * (docs/notify.md); everything in it is shown as text.
 */

/** The board's page a message links to: a path or an http(s) address, else the board itself. */
function target(url) {
  try {
    const parsed = new URL(typeof url === 'string' ? url : '/', self.location.origin);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : '/';
  } catch {
    return new URL('/', self.location.origin).href;
  }
}

function text(value, fallback) {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  const machine = text(data.machine, '');
  const options = {
    body: text(data.body, ''),
    // One notification per machine and session: a newer one replaces it.
    tag: machine === '' ? 'panoptes' : `panoptes:${machine}:${text(data.session, '')}`,
    renotify: true,
    icon: '/favicon.svg',
    data: { url: target(data.url) },
  };
  event.waitUntil(self.registration.showNotification(text(data.title, 'Panoptes'), options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = target(event.notification.data?.url);
  event.waitUntil(
    (async () => {
      const tabs = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = tabs.find((tab) => new URL(tab.url).origin === new URL(url).origin);
      if (open === undefined) {
        await self.clients.openWindow(url);
        return;
      }
      const focused = await open.focus();
      // A tab this worker controls can be taken to the machine; another one is only focused.
      if (open.url !== url && typeof focused.navigate === 'function')
        await focused.navigate(url).catch(() => undefined);
    })(),
  );
});

/*
 * What this browser's subscription is on the board, kept by the page when it subscribed
 * (state/web-push.ts): {id, auth, key}. The worker has no board token (the page keeps it in its
 * tab); the old subscription's auth secret is what lets it replace the subscription.
 */
const KEPT_CACHE = 'panoptes-push';
const KEPT_URL = '/panoptes-push-subscription';

async function readKept() {
  try {
    const response = await (await caches.open(KEPT_CACHE)).match(KEPT_URL);
    const kept = response === undefined ? null : await response.json();
    return typeof kept?.id === 'string' && typeof kept.auth === 'string' ? kept : null;
  } catch {
    return null;
  }
}

async function writeKept(kept) {
  const cache = await caches.open(KEPT_CACHE);
  await cache.put(KEPT_URL, new Response(JSON.stringify(kept)));
}

function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const text = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/**
 * The browser's push service replaced (or ended) the subscription: subscribe again with the same
 * application server key and hand the board the new one in place of the old.
 */
async function renew(event) {
  const kept = await readKept();
  // Not subscribed through the board's page (or stopped there): nothing to renew.
  if (kept === null) return;
  const key = event.oldSubscription?.options?.applicationServerKey ?? keyBytes(kept.key);
  const subscription =
    event.newSubscription ??
    (await self.registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: key,
    }));
  const json = subscription.toJSON();
  const response = await fetch(`/api/push/subscriptions/${encodeURIComponent(kept.id)}/renew`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: kept.auth, subscription: json }),
  });
  if (!response.ok) return;
  const { id } = await response.json();
  await writeKept({ id, auth: json.keys.auth, key: kept.key });
}

self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(renew(event));
});

// A new version of this file takes over at once (it keeps no cache of the page, so nothing is lost).
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
