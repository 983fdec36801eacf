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

// A new version of this file takes over at once (it keeps no cache, so nothing is lost).
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
