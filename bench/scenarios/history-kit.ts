import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../processes.js';

/**
 * The board's history modules, loaded from the build (dist/board/history) so the bench measures
 * the code that ships; typed here by the little the bench uses of them.
 */
export type Metric = 'cpu' | 'mem' | 'load' | 'disk' | 'latency_ms' | 'bells';
export type Tier = 'raw' | 'm5' | 'h1';
export interface Sample {
  t: number;
  n: number;
  up: number;
  avg: Record<Metric, number | null>;
  max: Record<Metric, number | null>;
}
export interface Batch {
  samples: { tier: Tier; name: string; sample: Sample }[];
  events: {
    name: string;
    at: number;
    state: 'up' | 'down';
    previous: 'up' | 'down' | null;
    reason: string | null;
  }[];
  forget: string[];
  cutoffs: Record<Tier, number>;
}
export interface Store {
  write(batch: Batch): Promise<void>;
  close(): Promise<void>;
}
export interface HistoryService {
  record(set: unknown): void;
  recorder: { settled(): Promise<void> };
  series(
    name: string,
    range: string,
    window: { fromS: number; toS: number },
    points: number,
  ): Promise<unknown>;
  uptime(names: Iterable<string>): Promise<unknown[]>;
  close(): Promise<void>;
}
export interface HistoryModules {
  openLibsqlHistory(path: string): Store;
  History: new (
    store: Store,
    retention: Record<Tier, number>,
    clock: { now(): number },
    onError: (error: unknown) => void,
  ) => HistoryService;
  HISTORY_DEFAULTS: Record<Tier, number>;
}

/** Loads the built history modules. */
export async function loadHistory(): Promise<HistoryModules> {
  const at = (file: string) => pathToFileURL(join(ROOT, 'dist/board/history', file)).href;
  const [store, history, settings] = (await Promise.all([
    import(pathToFileURL(join(ROOT, 'dist/board/store/sqlite/history-store.js')).href),
    import(at('history.js')),
    import(at('settings.js')),
  ])) as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
  return {
    openLibsqlHistory: store.openLibsqlHistory as HistoryModules['openLibsqlHistory'],
    History: history.History as HistoryModules['History'],
    HISTORY_DEFAULTS: settings.HISTORY_DEFAULTS as HistoryModules['HISTORY_DEFAULTS'],
  };
}

/** A clock the bench moves by hand. */
export class BenchClock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
}

/** A change set as the board closes one: `n` machines up with plausible numbers. */
export function changeSet(names: readonly string[], atMs: number, seq: number): unknown {
  const machines = function* () {
    for (let i = 0; i < names.length; i += 1) {
      const x = (i * 7919 + seq * 104_729) % 10_000;
      yield {
        name: names[i],
        observed: true,
        state: 'up',
        metrics: {
          cpu: x / 10_000,
          mem: 0.3 + (x % 5000) / 10_000,
          load: (x % 400) / 100,
          disk: 0.5 + (x % 300) / 1000,
          bells: x % 17 === 0 ? 1 : 0,
          latencyMs: 1 + (x % 900) / 100,
        },
      };
    }
  };
  return { at: atMs, transitions: [], removed: [], machines, size: names.length };
}

/** A sample with plausible numbers, for synthetic history. */
export function sample(t: number, n: number, seed: number): Sample {
  const x = (seed * 7919 + t * 31) % 10_000;
  const avg = {
    cpu: x / 10_000,
    mem: 0.3 + (x % 5000) / 10_000,
    load: (x % 400) / 100,
    disk: 0.5 + (x % 300) / 1000,
    latency_ms: 1 + (x % 900) / 100,
    bells: 0,
  };
  return { t, n, up: 1, avg, max: { ...avg, cpu: Math.min(1, avg.cpu + 0.1) } };
}

/** The fleet a recording board polls: every machine answers but a tenth, which refuse. */
export const RECORDED_FLEET = {
  blackHoleShare: 0,
  refusingShare: 0.1,
  slowShare: 0,
  slowMs: [0, 0] as [number, number],
  seed: 7,
};

/**
 * Writes one sample of each of `machines` machines (m0, m1, …) at each of `times`, machine
 * after machine per sweep as the board writes them, 200 sweeps to a batch; `n` is each
 * sample's weight (1 for a raw sweep).
 */
export async function writeSweeps(
  store: Store,
  tier: Tier,
  times: readonly number[],
  machines: number,
  n = 1,
): Promise<void> {
  for (let i0 = 0; i0 < times.length; i0 += 200) {
    const batch: Batch = { samples: [], events: [], forget: [], cutoffs: { raw: 0, m5: 0, h1: 0 } };
    for (const t of times.slice(i0, i0 + 200))
      for (let m = 0; m < machines; m += 1)
        batch.samples.push({ tier, name: `m${m}`, sample: sample(t, n, m) });
    await store.write(batch);
  }
}
