import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { parseSelector, type Selector } from '../../../../shared/selector.js';
import type { Api } from '../api/client.js';
import type { Machine } from '../api/types.js';
import { usePolled } from '../hooks.js';

/** A group of board.yaml with its selector parsed once, here. */
export interface PageGroup {
  name: string;
  selector: Selector;
}

export interface GroupCount {
  up: number;
  down: number;
}

// Groups change only with a reload of board.yaml: a minute is soon enough.
const REFRESH_MS = 60_000;
const NO_GROUPS: readonly PageGroup[] = [];

/**
 * The board's groups (GET /api/groups); none while the board has none or cannot say. Asked
 * only once `ready` (the board view came: the token works), so that a wrong token costs one
 * refused request, not one more toward the limit on failures.
 */
export function useGroups(api: Api, ready: boolean): readonly PageGroup[] {
  const load = useCallback(async () => {
    if (!ready) return NO_GROUPS;
    const out: PageGroup[] = [];
    for (const g of await api.groups()) {
      try {
        out.push({ name: g.name, selector: parseSelector(g.selector) });
      } catch {
        // the board parsed it; one it sends broken is left off the bar
      }
    }
    return out;
  }, [api, ready]);
  return usePolled<readonly PageGroup[]>(load, NO_GROUPS, REFRESH_MS);
}

/** Each group's up and down machines among those the page holds. */
export function countGroups(
  groups: readonly PageGroup[],
  machines: Iterable<Machine>,
): Map<string, GroupCount> {
  const out = new Map<string, GroupCount>(groups.map((g) => [g.name, { up: 0, down: 0 }]));
  if (groups.length === 0) return out;
  for (const m of machines) {
    for (const g of groups) {
      if (!g.selector.matches(m.labels, m.name)) continue;
      const c = out.get(g.name) as GroupCount;
      if (m.state === 'up') c.up += 1;
      else c.down += 1;
    }
  }
  return out;
}

/** `value`, changing at most once every `ms` (counts over a big fleet are not made per frame). */
export function useThrottled(value: number, ms: number): number {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    if (value === shown) return;
    const timer = window.setTimeout(
      () => {
        last.current = Date.now();
        setShown(value);
      },
      Math.max(0, last.current + ms - Date.now()),
    );
    return () => window.clearTimeout(timer);
  }, [value, shown, ms]);
  return shown;
}
