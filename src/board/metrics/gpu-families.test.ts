import { describe, expect, it } from 'vitest';
import type { Machine } from '../domain/machine.js';
import { metricsOf } from '../domain/metrics.js';
import { formatGpuFamilies } from './gpu-families.js';

const MIB = 1024 * 1024;

function machine(name: string, overview: Record<string, unknown>): Machine {
  return { name, metrics: metricsOf(overview, null) } as Machine;
}

describe('GPU families on /metrics', () => {
  it('one series per GPU, labelled {name, gpu}; a value not known has no line', () => {
    const text = formatGpuFamilies([
      machine('plain', {}),
      machine('gpu1', {
        gpus: [
          {
            index: 0,
            name: 'NVIDIA H100 80GB HBM3',
            util: 1,
            mem_used: 19818 * MIB,
            mem_total: 81559 * MIB,
            temp_c: 59,
            power_w: 631.95,
          },
          { index: 3, name: 'NVIDIA H100 80GB HBM3', util: null, mem_used: 59 * MIB },
        ],
      }),
    ]);
    expect(text).toBe(
      [
        '# HELP panoptes_gpu_utilization_ratio share of the GPU busy, 0-1',
        '# TYPE panoptes_gpu_utilization_ratio gauge',
        'panoptes_gpu_utilization_ratio{name="gpu1",gpu="0"} 1',
        '# HELP panoptes_gpu_memory_used_bytes GPU memory in use, bytes',
        '# TYPE panoptes_gpu_memory_used_bytes gauge',
        `panoptes_gpu_memory_used_bytes{name="gpu1",gpu="0"} ${19818 * MIB}`,
        `panoptes_gpu_memory_used_bytes{name="gpu1",gpu="3"} ${59 * MIB}`,
        '# HELP panoptes_gpu_memory_total_bytes GPU memory, bytes',
        '# TYPE panoptes_gpu_memory_total_bytes gauge',
        `panoptes_gpu_memory_total_bytes{name="gpu1",gpu="0"} ${81559 * MIB}`,
        '# HELP panoptes_gpu_temperature_celsius GPU temperature, degrees Celsius',
        '# TYPE panoptes_gpu_temperature_celsius gauge',
        'panoptes_gpu_temperature_celsius{name="gpu1",gpu="0"} 59',
        '# HELP panoptes_gpu_power_watts GPU power draw, watts',
        '# TYPE panoptes_gpu_power_watts gauge',
        'panoptes_gpu_power_watts{name="gpu1",gpu="0"} 631.95',
        '',
      ].join('\n'),
    );
  });
});
