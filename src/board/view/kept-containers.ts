import { type ContainerUse, type SmartUse, sameContainers } from '../domain/machine-now.js';

/**
 * The containers to keep of a new overview. Most reports list the same containers in the same
 * states, only their CPU and memory moved: their numbers are then written into the kept ones
 * and the kept list stays, so a machine running 50 containers keeps no new list and no new
 * objects per report (each would outlive the young generation until the next report). A list
 * that differs (a container came, went, or changed state or health) replaces the kept one, its
 * names taken from the kept one where equal, so the new copies of the names die young.
 */
export function keptContainers(
  before: readonly ContainerUse[] | null,
  now: readonly ContainerUse[] | null,
): readonly ContainerUse[] | null {
  if (now === null || now.length === 0 || before === null) return now;
  if (sameContainers(before, now)) {
    for (let i = 0; i < now.length; i += 1) {
      const kept = before[i] as ContainerUse;
      const next = now[i] as ContainerUse;
      kept.cpu = next.cpu;
      kept.memUsedBytes = next.memUsedBytes;
    }
    return before;
  }
  const shared = Math.min(before.length, now.length);
  for (let i = 0; i < shared; i += 1) {
    const kept = before[i] as ContainerUse;
    const next = now[i] as ContainerUse;
    if (kept.name === next.name) next.name = kept.name;
  }
  return now;
}

/** The disks' health to keep: the kept list while it says the same, else the new one. */
export function keptSmart(
  before: readonly SmartUse[] | null,
  now: readonly SmartUse[] | null,
): readonly SmartUse[] | null {
  if (now === null || before === null || before.length !== now.length) return now;
  for (let i = 0; i < now.length; i += 1) {
    const x = before[i] as SmartUse;
    const y = now[i] as SmartUse;
    if (x.device !== y.device || x.passed !== y.passed) return now;
  }
  return before;
}
