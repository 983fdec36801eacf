import { useCallback } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { usePolled } from '../hooks.js';

/** One board of GET /api/cluster. */
export interface ClusterBoard {
  id: string;
  alive: boolean;
  /** The board that answered: the one serving this page (the answer's `self`). */
  self: boolean;
}

const REFRESH_MS = 5000;

const NO_BOARDS: readonly ClusterBoard[] = [];

/** The boards that share this board's store, read every 5 s (empty until the first answer). */
export function useClusterFeed(api: Api, allowed = true): readonly ClusterBoard[] {
  // An older board without /api/cluster: no line; someone who cannot see the whole fleet: none.
  const load = useCallback(
    async () => (allowed ? parseCluster(await api.getJson('/api/cluster')) : NO_BOARDS),
    [api, allowed],
  );
  return usePolled<readonly ClusterBoard[]>(load, NO_BOARDS, REFRESH_MS);
}

/**
 * The boards of a GET /api/cluster answer; what does not check is left out. `self` names the
 * board that answered (a board without it marks none).
 */
export function parseCluster(body: unknown): ClusterBoard[] {
  const answer = body as { self?: unknown; boards?: unknown } | null;
  const list = answer?.boards;
  if (!Array.isArray(list)) return [];
  const self = typeof answer?.self === 'string' ? answer.self : null;
  return list.flatMap((b: unknown) => {
    const x = b as { id?: unknown; alive?: unknown } | null;
    return typeof x?.id === 'string' && typeof x.alive === 'boolean'
      ? [{ id: x.id, alive: x.alive, self: x.id === self }]
      : [];
  });
}
