import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';

/** One board of GET /api/cluster. */
export interface ClusterBoard {
  id: string;
  alive: boolean;
}

const REFRESH_MS = 5000;

/** The boards that share this board's store, read every 5 s (empty until the first answer). */
export function useClusterFeed(api: Api): readonly ClusterBoard[] {
  const [boards, setBoards] = useState<readonly ClusterBoard[]>([]);
  useEffect(() => {
    let live = true;
    const load = () => {
      api
        .getJson('/api/cluster')
        .then((body) => {
          if (live) setBoards(parseCluster(body));
        })
        // An older board without /api/cluster: no line.
        .catch(() => undefined);
    };
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api]);
  return boards;
}

/** The boards of a GET /api/cluster answer; what does not check is left out. */
export function parseCluster(body: unknown): ClusterBoard[] {
  const list = (body as { boards?: unknown } | null)?.boards;
  if (!Array.isArray(list)) return [];
  return list.flatMap((b: unknown) => {
    const x = b as { id?: unknown; alive?: unknown } | null;
    return typeof x?.id === 'string' && typeof x.alive === 'boolean'
      ? [{ id: x.id, alive: x.alive }]
      : [];
  });
}
