/**
 * Which live board polls a machine: rendezvous (highest-random-weight) hashing of the name over
 * the live boards' ids. Every board computes the same answer from the same list, with no
 * coordination; when a board dies or joins, only the machines it owned (or wins) move, about
 * 1/n of them, and the rest stay where they are (a lease table would need a write per machine
 * and a renewal per lease). Pure: the engine only stores the heartbeats it is computed from.
 */
export function ownerOf(name: string, liveIds: readonly string[]): string | null {
  let best: string | null = null;
  let bestWeight = -1;
  for (const id of liveIds) {
    const w = weight(id, name);
    if (w > bestWeight || (w === bestWeight && best !== null && id < best)) {
      best = id;
      bestWeight = w;
    }
  }
  return best;
}

/** The names `self` owns among `names`, given the live boards (self included). */
export function owned(
  self: string,
  names: Iterable<string>,
  liveIds: readonly string[],
): Set<string> {
  const ids = liveIds.includes(self) ? liveIds : [...liveIds, self];
  const mine = new Set<string>();
  for (const name of names) if (ownerOf(name, ids) === self) mine.add(name);
  return mine;
}

/** A 32-bit weight of (board, machine): FNV-1a over both, then a finalising mix (murmur3's). */
function weight(id: string, name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 0, 0x01000193);
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
