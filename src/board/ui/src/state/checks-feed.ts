import { useEffect, useState } from 'preact/hooks';
import { type CheckRow, fetchChecks } from '../api/checks.js';
import type { Api } from '../api/client.js';

/**
 * How often GET /api/checks is read again. The live socket carries machines, not checks (a
 * board-run check or a push beat changes no machine), so the page asks: a small answer.
 */
export const CHECKS_REFRESH_MS = 5000;
/** A board without checks gains them only with a reload of board.yaml: asked less often. */
const NO_CHECKS_REFRESH_MS = 30_000;

/**
 * The board's checks, read now and again every few seconds; null until the first answer (a
 * failed read keeps the last one). Asked only once `ready` (the token proven), like the groups.
 */
export function useChecksFeed(api: Api, ready: boolean): readonly CheckRow[] | null {
  const [checks, setChecks] = useState<readonly CheckRow[] | null>(null);
  useEffect(() => {
    if (!ready) return;
    let live = true;
    let timer: number | undefined;
    const read = () => {
      void fetchChecks(api)
        .then(
          (rows) => {
            if (live) setChecks(rows);
            return rows.length > 0;
          },
          () => true,
        )
        .then((some) => {
          if (live)
            timer = window.setTimeout(read, some ? CHECKS_REFRESH_MS : NO_CHECKS_REFRESH_MS);
        });
    };
    read();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [api, ready]);
  return checks;
}
