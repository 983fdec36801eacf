import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { type Me, parseMe } from '../api/me.js';

export type { Me };

/** Whether this browser holds a session: what GET /api/me answers with its cookie alone. */
export type SessionCheck =
  | { kind: 'in'; me: Me }
  | { kind: 'out' }
  | { kind: 'wait'; detail: string }
  | { kind: 'failed'; detail: string };

/** Asks GET /api/me with the cookie (no Authorization header): a 401 means nobody is signed in. */
export async function checkSession(): Promise<SessionCheck> {
  try {
    const r = await fetch('/api/me', {
      headers: { Accept: 'application/json' },
      credentials: 'same-origin',
    });
    const body = (await r.json().catch(() => null)) as unknown;
    if (r.status === 401) return { kind: 'out' };
    const detail = detailText(body, `HTTP ${r.status}`);
    if (r.status === 429) return { kind: 'wait', detail };
    const me = r.status === 200 ? parseMe(body) : null;
    return me === null ? { kind: 'failed', detail } : { kind: 'in', me };
  } catch (error) {
    return { kind: 'failed', detail: error instanceof Error ? error.message : String(error) };
  }
}

/** A FastAPI-shaped body's `detail` (a string), else `fallback`. */
export function detailText(body: unknown, fallback: string): string {
  const d =
    typeof body === 'object' && body !== null ? (body as { detail?: unknown }).detail : undefined;
  return typeof d === 'string' ? d : fallback;
}

/**
 * Who is signed in: `known` (a cookie session, asked before the page) or, with a token, asked
 * once `ready` (the board took the token: no extra request is made with a wrong one). null
 * until known, and for a board too old to answer (the board still decides every request).
 */
export function useMe(api: Api, ready: boolean, known: Me | null): Me | null {
  const [me, setMe] = useState<Me | null>(known);
  useEffect(() => {
    if (known !== null || !ready) return;
    let live = true;
    api.me().then(
      (m) => {
        if (live) setMe(m);
      },
      // Not known: every control stays, and the board refuses what the role cannot do.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, ready, known]);
  return known ?? me;
}
