import { useCallback } from 'preact/hooks';
import { type CheckRow, fetchChecks } from '../api/checks.js';
import type { Api } from '../api/client.js';
import { usePolled } from '../hooks.js';

/**
 * How often GET /api/checks is read again. The live socket carries machines, not checks (a
 * board-run check or a push beat changes no machine), so the page asks: a small answer.
 */
export const CHECKS_REFRESH_MS = 5000;

/**
 * The board's checks, read now and every few seconds; null until the first answer. Asked only
 * once `ready` (the token proven), like the groups.
 */
export function useChecksFeed(api: Api, ready: boolean): readonly CheckRow[] | null {
  const load = useCallback(async () => (ready ? fetchChecks(api) : null), [api, ready]);
  return usePolled<readonly CheckRow[] | null>(load, null, CHECKS_REFRESH_MS);
}
