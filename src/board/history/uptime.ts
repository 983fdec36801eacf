import type { UptimeInput } from './store.js';

/** The uptime windows GET /api/uptime answers, in ms. */
export const UPTIME_WINDOWS = {
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
} as const;
export type UptimeWindow = keyof typeof UPTIME_WINDOWS;

/**
 * The share of [start, now] the machine was up, exact from its state changes, counted from when
 * it was first seen if that is later than the window's start; null if not seen by now. The state
 * recorded last stays in force until the next change (including while the board was stopped).
 */
export function uptimeShare(input: UptimeInput, windowStart: number, now: number): number | null {
  const from = Math.max(windowStart, input.firstSeen);
  if (from >= now) return null;
  let state = input.stateAtFrom;
  let since = from;
  let upMs = 0;
  // Changes before `from` only set the state in force at `from`.
  for (const e of input.events) {
    if (e.at <= from) {
      state = e.state;
      continue;
    }
    if (e.at >= now) break;
    if (state === 'up') upMs += e.at - since;
    state = e.state;
    since = e.at;
  }
  if (state === 'up') upMs += now - since;
  return upMs / (now - from);
}

/** Uptime over each window for one machine. */
export function uptimeOf(input: UptimeInput, now: number): Record<UptimeWindow, number | null> {
  return {
    '24h': uptimeShare(input, now - UPTIME_WINDOWS['24h'], now),
    '7d': uptimeShare(input, now - UPTIME_WINDOWS['7d'], now),
    '30d': uptimeShare(input, now - UPTIME_WINDOWS['30d'], now),
  };
}
