import type { StateEvent, UptimeTotals } from './history-store.js';

/** The uptime windows GET /api/uptime answers, in ms. */
export const UPTIME_WINDOWS = {
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
} as const;
export type UptimeWindow = keyof typeof UPTIME_WINDOWS;

/**
 * The ms a machine was up within [start, now], exact from its state changes (oldest first):
 * each state lasts until the next change, the last one until now (including while the board
 * itself was stopped).
 */
export function upMsWithin(events: readonly StateEvent[], start: number, now: number): number {
  let up = 0;
  for (let i = 0; i < events.length; i += 1) {
    const e = events[i];
    if (e === undefined || e.state !== 'up') continue;
    const until = Math.min(events[i + 1]?.at ?? now, now);
    up += Math.max(0, until - Math.max(e.at, start));
  }
  return up;
}

/**
 * The share of a window the machine was up, counted from when it was first seen if that is
 * later than the window's start; null if it was not seen by now.
 */
export function shareOf(
  upMs: number,
  firstSeen: number,
  windowStart: number,
  now: number,
): number | null {
  const from = Math.max(windowStart, firstSeen);
  if (from >= now) return null;
  return Math.min(1, upMs / (now - from));
}

/** Uptime over each window for one machine. */
export function uptimeOf(t: UptimeTotals, now: number): Record<UptimeWindow, number | null> {
  const share = (w: UptimeWindow) => shareOf(t.upMs[w], t.firstSeen, now - UPTIME_WINDOWS[w], now);
  return { '24h': share('24h'), '7d': share('7d'), '30d': share('30d') };
}
