import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { NO_LABELS } from '../../shared/labels.js';
import type { Machine } from '../domain/machine.js';
import { metricsOf } from '../domain/metrics.js';
import { changeSet } from '../notify/test-kit.js';
import { formatContainerFamilies } from './container-families.js';
import { formatMachineFamilies } from './machine-families.js';
import { MetricsExporter } from './metrics-exporter.js';

interface Family {
  name: string;
  metrics: { value: string; labels: Record<string, string> }[];
}

function machine(name: string, overview: Record<string, unknown>): Machine {
  return {
    name,
    origin: 'announced',
    state: 'up',
    metrics: metricsOf(overview, null),
    labels: NO_LABELS,
  } as Machine;
}

const HOSTILE = 'evil"} panoptes_container_up{machine="x",container="y"} 1\n\\';

describe('container families on /metrics', () => {
  it('one series per container, labelled {machine, container}; its name escaped whatever it holds', () => {
    const text = formatContainerFamilies([
      machine('plain', {}),
      machine('web1', {
        containers: [
          { name: 'nginx', state: 'running', health: null, cpu: 0.25, mem_used: 1000 },
          { name: HOSTILE, state: 'exited', health: null, cpu: null, mem_used: null },
        ],
      }),
    ]);
    const families = parsePrometheusTextFormat(text) as Family[];
    const series = families.flatMap((f) =>
      f.metrics.map((m) => `${f.name} ${m.labels.machine} ${m.labels.container} ${m.value}`),
    );
    // The name comes back as it was kept (its line feed made U+FFFD when it was read).
    const kept = HOSTILE.replace('\n', '\ufffd');
    expect(series).toEqual([
      'panoptes_container_up web1 nginx 1',
      `panoptes_container_up web1 ${kept} 0`,
      'panoptes_container_cpu web1 nginx 0.25',
      'panoptes_container_mem_bytes web1 nginx 1000',
    ]);
    expect(text.split('\n').filter((l) => l.startsWith('panoptes_container_up'))).toHaveLength(2);
  });

  it('on a scrape: no container family at all while no machine lists a container', async () => {
    // A board first scraped makes its text then (a second scrape would get the last one made).
    const scrape = async (machines: Machine[]) => {
      const exporter = new MetricsExporter();
      exporter.onChangeSet(changeSet(Date.now(), { machines }));
      return (await exporter.scrape()).toString();
    };
    expect(await scrape([machine('plain', { containers_error: 'x' })])).not.toContain(
      'panoptes_container_',
    );
    const text = await scrape([
      machine('web1', { containers: [{ name: 'db', state: 'dead', health: null }] }),
    ]);
    expect(text).toContain('# TYPE panoptes_container_up gauge');
    expect(text).toContain('panoptes_container_up{machine="web1",container="db"} 0');
  });

  it("the machine's network rates and hottest sensor, where known", () => {
    const text = formatMachineFamilies([
      machine('a', {
        net: { rx_bps: 1500, tx_bps: 20.5, interfaces: [] },
        temps: [{ label: 'x', c: 71 }],
      }),
      machine('b', {}),
    ]);
    const lines = text.split('\n');
    expect(lines).toContain(
      'panoptes_machine_net_rx_bytes_per_second{name="a",origin="announced"} 1500',
    );
    expect(lines).toContain(
      'panoptes_machine_net_tx_bytes_per_second{name="a",origin="announced"} 20.5',
    );
    expect(lines).toContain('panoptes_machine_temp_max_celsius{name="a",origin="announced"} 71');
    expect(lines.filter((l) => l.includes('name="b"') && l.includes('temp_max'))).toEqual([]);
  });
});
