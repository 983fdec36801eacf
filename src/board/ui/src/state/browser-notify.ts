import type { Machine } from '../api/types.js';

/** What a browser notification says (already in the person's language). */
export interface BrowserAlert {
  title: string;
  body: string;
  /** One notification per machine and kind: a newer one replaces it. */
  tag: string;
}

/**
 * What deserves a browser notification when a machine's record changes: it went down, or a
 * session started waiting for attention. A silenced machine raises nothing (maintenance).
 */
export function alertsFor(
  before: Machine | undefined,
  after: Machine,
  now: number,
  text: { down(m: Machine): string; bell(m: Machine, session: string): string },
): BrowserAlert[] {
  if (before === undefined) return [];
  if (after.silencedUntil !== null && after.silencedUntil > now) return [];
  const out: BrowserAlert[] = [];
  if (before.state === 'up' && after.state === 'down') {
    out.push({ title: text.down(after), body: after.error ?? '', tag: `down:${after.name}` });
  }
  const known = new Set(before.attention.map((s) => `${s.session}\n${s.at}`));
  for (const s of after.attention) {
    if (known.has(`${s.session}\n${s.at}`)) continue;
    out.push({
      title: text.bell(after, s.session),
      body: s.text,
      tag: `bell:${after.name}:${s.session}`,
    });
  }
  return out;
}

/** Whether this browser can show notifications at all. */
export function notificationsSupported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

/** Shows alerts when the person allowed it (and asked for them on this board). */
export function showAlerts(alerts: readonly BrowserAlert[], enabled: boolean): void {
  if (!enabled || alerts.length === 0 || !notificationsSupported()) return;
  if (Notification.permission !== 'granted') return;
  for (const a of alerts) {
    try {
      new Notification(a.title, { body: a.body, tag: a.tag });
    } catch {
      // Some mobile browsers allow notifications only from a service worker: nothing to show.
    }
  }
}
