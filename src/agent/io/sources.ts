import type { SourceSpec } from '../app.js';
import type { AgentSettings } from '../config.js';
import { nodeGpuReader } from './gpu-probe.js';
import { nodeHwmonReader } from './hwmon-reader.js';
import { nodeNetReader } from './net-reader.js';
import { nodeProcessReader } from './process-reader.js';
import { nodeSmartReader } from './smart-probe.js';

/**
 * The overview's background sources on this machine, each with its reader and interval
 * (DESIGN.md 11). A source the machine lacks answers `absent` and adds no field.
 */
export function machineSources(settings: AgentSettings, env: NodeJS.ProcessEnv): SourceSpec[] {
  const every = settings.sampleIntervalMs;
  return [
    { field: 'gpus', reader: nodeGpuReader(env), intervalMs: settings.gpuIntervalMs },
    { field: 'processes', reader: nodeProcessReader(), intervalMs: every },
    { field: 'net', reader: nodeNetReader(), intervalMs: every },
    { field: 'temps', reader: nodeHwmonReader(settings.hwmonRoot), intervalMs: every },
    { field: 'smart', reader: nodeSmartReader(env), intervalMs: every },
  ];
}
