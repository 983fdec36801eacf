import type { SourceSpec } from '../app.js';
import type { AgentSettings } from '../config.js';
import { nodeGpuReader } from './gpu-probe.js';

/**
 * The overview's background sources on this machine, each with its reader and interval
 * (DESIGN.md 11). A source the machine lacks answers `absent` and adds no field.
 */
export function machineSources(settings: AgentSettings, env: NodeJS.ProcessEnv): SourceSpec[] {
  return [{ field: 'gpus', reader: nodeGpuReader(env), intervalMs: settings.gpuIntervalMs }];
}
