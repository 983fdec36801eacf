import type { Clock } from '../../shared/clock.js';
import type { MachineMemory } from '../domain/machine-memory.js';
import { keptSessions } from './kept-parts.js';
import { keepOverview, overviewOf, recordBytes } from './machine-record.js';
import { keepMetrics } from './metric-numbers.js';
import { ViewCache } from './view-cache.js';

/** The machines' memory and the board view, as a registry uses them (one per registry). */
export function machineMemory(clock: Clock): MachineMemory {
  return {
    keepOverview,
    overview: overviewOf,
    keepMetrics,
    keptSessions,
    recordBytes,
    view: new ViewCache(clock),
  };
}
