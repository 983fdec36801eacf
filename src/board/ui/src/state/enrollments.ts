import { createContext } from 'preact';
import { useCallback, useContext } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { usePolled } from '../hooks.js';

const REFRESH_MS = 15_000;
const NONE: ReadonlySet<string> = new Set();

/** The names added from the board (GET /api/enrollments): their cards offer "Revoke". */
export const EnrolledContext = createContext<ReadonlySet<string>>(NONE);

export const useEnrolled = (): ReadonlySet<string> => useContext(EnrolledContext);

/**
 * The enrolled names, read every 15 s and at once when `nonce` changes (after this page added
 * or revoked one). An older board without the route: none.
 */
export function useEnrollmentsFeed(api: Api, nonce: number, allowed = true): ReadonlySet<string> {
  const load = useCallback(async () => {
    void nonce;
    if (!allowed) return NONE; // not the person's to see (auth/can.ts): not asked
    return parseEnrollments(await api.getJson('/api/enrollments'));
  }, [api, nonce, allowed]);
  return usePolled<ReadonlySet<string>>(load, NONE, REFRESH_MS);
}

/** The names of a GET /api/enrollments answer; what does not check is left out. */
export function parseEnrollments(body: unknown): ReadonlySet<string> {
  const list = (body as { enrollments?: unknown } | null)?.enrollments;
  if (!Array.isArray(list)) return NONE;
  const names = new Set<string>();
  for (const e of list) {
    const name = (e as { name?: unknown } | null)?.name;
    if (typeof name === 'string') names.add(name);
  }
  return names;
}
