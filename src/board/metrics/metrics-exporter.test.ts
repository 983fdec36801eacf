import { describe, expect, it } from 'vitest';
import { NO_LABELS } from '../../shared/labels.js';
import type { ChangeSet } from '../domain/change-set.js';
import type { Machine } from '../domain/machine.js';
import { MetricsExporter } from './metrics-exporter.js';

function machine(name: string, queued: number): Machine {
  return {
    name,
    origin: 'announced',
    state: 'up',
    lastSeen: null,
    metrics: null,
    queued,
    labels: NO_LABELS,
  } as Machine;
}

let seq = 0;
function set(machines: Machine[]): ChangeSet {
  seq += 1;
  return {
    seq,
    at: Date.now(),
    sweepMs: null,
    transitions: [],
    late: [],
    bells: [],
    actionsFailed: [],
    containers: [],
    diskHealth: [],
    changed: new Set(),
    removed: [],
    dropped: 0,
    reports: 0,
    machines: () => machines.values(),
    size: machines.length,
  };
}

const queuedLine = (text: string, name: string) =>
  text.split('\n').find((l) => l.startsWith(`panoptes_machine_queued_actions{name="${name}"`));

describe('MetricsExporter', () => {
  it('makes no text for a board nobody scrapes; the first scrape waits for the last set', async () => {
    const exporter = new MetricsExporter();
    for (let i = 0; i < 5; i += 1) exporter.onChangeSet(set([machine('a', i)]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(exporter.preparedSets).toBe(0);
    const text = (await exporter.scrape()).toString();
    expect(queuedLine(text, 'a')).toMatch(/ 4$/);
    expect(exporter.preparedSets).toBe(1);
  });

  it('once scraped, prepares each set as it closes, and a scrape gets the last finished text', async () => {
    const exporter = new MetricsExporter();
    exporter.onChangeSet(set([machine('a', 1)]));
    await exporter.scrape();
    exporter.onChangeSet(set([machine('a', 2), machine('b', 7)]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(exporter.preparedSets).toBe(2);
    const text = (await exporter.scrape()).toString();
    expect(queuedLine(text, 'a')).toMatch(/ 2$/);
    expect(queuedLine(text, 'b')).toMatch(/ 7$/);
    // A scrape of the same set makes nothing again.
    await exporter.scrape();
    expect(exporter.preparedSets).toBe(2);
  });
});
