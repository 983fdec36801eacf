import { checksVersionOf } from '../../shared/checks/results-of.js';
import type { Clock } from '../../shared/clock.js';
import type { AgentClient } from './agent-client.js';
import type { Registry } from './registry.js';
import type { MachineConfig } from './settings.js';

export interface SweepOptions {
  timeoutMs: number;
  concurrency: number;
  /**
   * Names of the machines whose last poll used up the whole time-out (they accept and never
   * answer). The sweep reads it to plan and updates it as polls end; the caller keeps it from
   * one sweep to the next.
   */
  silent?: Set<string>;
  /** A machine answered its poll; its overview says it was last handed checks of `version`. */
  polled?: (name: string, version: string | undefined) => void;
}

/** The wide lane polls this many times `concurrency` machines at once. */
export const WIDE_LANE_FACTOR = 8;

/**
 * Polls every configured machine once, each with its own time-out, in two lanes. Machines
 * that answered (or failed at once) last time go `concurrency` at a time. Machines that were
 * silent last time, or have never answered, go first in a lane `WIDE_LANE_FACTOR` times wider:
 * a silent poll costs a socket and a timer, not CPU, and started together they cost the sweep
 * one time-out in all instead of one per `concurrency` of them. Each machine is updated the
 * moment its own poll ends, so a silent one delays nobody else.
 */
export async function sweep(
  registry: Registry,
  machines: readonly MachineConfig[],
  client: AgentClient,
  clock: Clock,
  options: SweepOptions,
): Promise<void> {
  const startedAt = clock.now();
  const silent = options.silent ?? new Set<string>();
  const poll = async (config: MachineConfig): Promise<void> => {
    const began = clock.now();
    const observation = await client.overview(config, options.timeoutMs);
    const took = clock.now() - began;
    if (!observation.ok && took >= options.timeoutMs * 0.9) silent.add(config.name);
    else silent.delete(config.name);
    const machine = registry.get(config.name);
    if (machine === undefined) return;
    registry.observe(machine, observation.ok ? { ...observation, latencyMs: took } : observation);
    // Its record is encoded now, while the sweep spreads the polls over seconds, so the view
    // rebuilt at the end of the sweep is one copy, not 10,000 encodings in one turn.
    registry.memory.recordBytes(machine);
    if (observation.ok && options.polled !== undefined) {
      const version =
        observation.prepared !== undefined
          ? observation.prepared.checksVersion
          : checksVersionOf(observation.overview ?? {});
      options.polled(config.name, version);
    }
  };
  const wide: MachineConfig[] = [];
  const narrow: MachineConfig[] = [];
  for (const config of machines) {
    const machine = registry.get(config.name);
    const unheard = silent.has(config.name) || (machine !== undefined && machine.lastSeen === null);
    (unheard ? wide : narrow).push(config);
  }
  await Promise.all([
    inLane(wide, options.concurrency * WIDE_LANE_FACTOR, poll),
    inLane(narrow, options.concurrency, poll),
  ]);
  registry.sweepFinished(startedAt, clock.now() - startedAt, machines.length > 0);
}

/** Polls `machines` in order, at most `width` at a time. */
async function inLane(
  machines: readonly MachineConfig[],
  width: number,
  poll: (config: MachineConfig) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < machines.length) {
      const config = machines[next];
      next += 1;
      if (config !== undefined) await poll(config);
    }
  };
  const workers = Math.max(0, Math.min(width, machines.length));
  await Promise.all(Array.from({ length: workers }, worker));
}
