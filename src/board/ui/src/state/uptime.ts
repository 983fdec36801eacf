import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { fetchUptime, type Uptime } from '../api/history.js';

/** Every machine's uptime: fetched once for the whole board and renewed every minute. */
export const UptimeContext = createContext<ReadonlyMap<string, Uptime>>(new Map());

const REFRESH_MS = 60_000;

/** Fetches /api/uptime now and once a minute (never once per card). */
export function useUptimeFeed(api: Api): ReadonlyMap<string, Uptime> {
  const [uptime, setUptime] = useState<ReadonlyMap<string, Uptime>>(new Map());
  useEffect(() => {
    let live = true;
    const load = () => {
      fetchUptime(api)
        .then((u) => {
          if (live) setUptime(u);
        })
        // A board without history (503) shows cards without uptime.
        .catch(() => undefined);
    };
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api]);
  return uptime;
}

/** One machine's uptime, from the board-wide feed. */
export function useUptime(name: string): Uptime | undefined {
  return useContext(UptimeContext).get(name);
}
