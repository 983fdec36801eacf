import type { ChangeCollector } from './change-set.js';
import type { Machine } from './machine.js';
import type { SessionMark } from './metrics.js';

/** Bells rung since the newest one seen before (none for a machine seen the first time). */
export function noteBells(
  machine: Machine,
  sessions: readonly SessionMark[],
  first: boolean,
  now: number,
  changes: ChangeCollector,
): void {
  const mark = machine.lastBellAt;
  let newest = mark;
  for (const s of sessions) {
    const at = s.at.slice(0, 64);
    if (mark !== null && at <= mark) continue;
    if (newest === null || at > newest) newest = at;
    // A first sighting only sets the mark: bells rung before the board saw it are old news.
    if (first) continue;
    changes.bell({
      name: machine.name,
      at: now,
      session: s.session.slice(0, 200),
      why: s.why,
      text: s.text.slice(0, 4000),
      rangAt: at,
    });
  }
  machine.lastBellAt = newest;
}
