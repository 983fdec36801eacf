import type { Clock } from '../../shared/clock.js';
import type { AgentClient } from '../agent-client.js';
import type { MachineConfig } from '../config.js';
import type { Registry } from './registry.js';

export interface SweepOptions {
  timeoutMs: number;
  concurrency: number;
}

/**
 * Polls every configured machine once, `concurrency` at a time, each with its own time-out.
 * Each machine is updated the moment its own poll ends, so a silent one delays nobody else.
 */
export async function sweep(
  registry: Registry,
  machines: readonly MachineConfig[],
  client: AgentClient,
  clock: Clock,
  options: SweepOptions,
): Promise<void> {
  const startedAt = clock.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < machines.length) {
      const config = machines[next];
      next += 1;
      if (config === undefined) continue;
      const observation = await client.overview(config, options.timeoutMs);
      const machine = registry.get(config.name);
      if (machine !== undefined) registry.observe(machine, observation);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency, machines.length));
  await Promise.all(Array.from({ length: workers }, worker));
  registry.sweepFinished(startedAt, clock.now() - startedAt);
}
