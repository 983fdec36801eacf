import { createContext } from 'preact';
import { useCallback, useContext } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { fetchUptime, type Uptime } from '../api/history.js';
import { usePolled } from '../hooks.js';

/** Every machine's uptime: fetched once for the whole board and renewed every minute. */
export const UptimeContext = createContext<ReadonlyMap<string, Uptime>>(new Map());

const REFRESH_MS = 60_000;

const NO_UPTIME: ReadonlyMap<string, Uptime> = new Map();

/** Fetches /api/uptime now and once a minute (never once per card). */
export function useUptimeFeed(api: Api): ReadonlyMap<string, Uptime> {
  // A board without history (503) shows cards without uptime.
  const load = useCallback(() => fetchUptime(api), [api]);
  return usePolled<ReadonlyMap<string, Uptime>>(load, NO_UPTIME, REFRESH_MS);
}

/** One machine's uptime, from the board-wide feed. */
export function useUptime(name: string): Uptime | undefined {
  return useContext(UptimeContext).get(name);
}
