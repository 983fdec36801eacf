import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { NO_LABELS } from '../../shared/labels.js';
import { parseSelector } from '../../shared/selector.js';
import { keepOverview, recordBytes } from '../view/machine-record.js';
import { type Machine, newMachine } from './machine.js';
import { labelsOf, relabel } from './machine-labels.js';

function machine(index: number): Machine {
  const name = `m${index}`;
  return newMachine({ name, origin: 'announced', location: `http://${name}:8701`, firstSeen: 0 });
}

/** 8 labels with a fleet's cardinalities: nearly every machine's map is its own. */
function eight(i: number): Record<string, string> {
  return {
    site: ['fra', 'ams', 'lon', 'par', 'waw', 'mad', 'mil', 'sto', 'dub', 'vie'][i % 10] as string,
    env: ['prod', 'staging', 'dev'][i % 3] as string,
    team: `team-${(i * 7) % 20}`,
    rack: `r${(i * 13) % 40}`,
    role: ['web', 'db', 'cache', 'gpu'][i % 4] as string,
    os: 'debian-12',
    zone: `z-${i % 3}`,
    owner: `owner-${(i * 17) % 50}`,
  };
}

describe('the labels a machine keeps', () => {
  it('are frozen, in key order, and have no inherited keys (a label may be called constructor)', () => {
    const m = machine(1);
    relabel(m, undefined, labelsOf({ labels: { zone: 'a', constructor: 'x', env: 'prod' } }));
    expect(Object.keys(m.labels)).toEqual(['constructor', 'env', 'zone']);
    expect(Object.isFrozen(m.labels)).toBe(true);
    expect(m.labels.constructor).toBe('x');
    const other = machine(2);
    relabel(other, { env: 'dev' }, labelsOf({ labels: { site: 'fra' } }));
    expect(JSON.stringify(other.labels)).toBe('{"env":"dev","site":"fra"}');
    expect(other.labels.constructor).toBeUndefined();
    expect(other.labels.toString).toBeUndefined();
    expect(parseSelector('constructor').matches(other.labels, other.name)).toBe(false);
    expect(parseSelector('constructor=x').matches(m.labels, m.name)).toBe(true);
  });

  it('from an overview: the pairs that keep the rule, in key order, the same the second time', () => {
    const overview = {
      labels: { zone: 'a', env: 'prod', 'Bad Key': 'x', site: 'not ok!', n: 3, name: 'x', os: '' },
    };
    for (let round = 0; round < 2; round++)
      expect(JSON.stringify(labelsOf(overview))).toBe('{"env":"prod","os":"","zone":"a"}');
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${100 + i}`, 'v']));
    expect(Object.keys(labelsOf({ labels: many }))).toHaveLength(32);
    expect(labelsOf({ labels: ['a'] })).toBe(NO_LABELS);
    expect(labelsOf({ labels: { 'Bad Key': 'x' } })).toBe(NO_LABELS);
    expect(Object.isFrozen(labelsOf(overview))).toBe(true);
  });

  it('cost 10,000 machines with 8 labels each under 300 bytes a machine of heap', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const machines = Array.from({ length: 10_000 }, (_, i) => machine(i));
    // Each map as a report brings it (parsed from JSON), held throughout: only what the
    // machines keep of them is counted.
    const given = machines.map((_, i) =>
      labelsOf(JSON.parse(JSON.stringify({ labels: eight(i) }))),
    );
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = heap();
    for (const [i, m] of machines.entries()) relabel(m, undefined, given[i]);
    const perMachine = (heap() - before) / machines.length;
    // Held to here, so that only the machines' own copies were counted.
    expect(given).toHaveLength(machines.length);
    // An object made by Object.create(null) is kept by V8 as a dictionary: ~560 bytes for 8.
    expect(perMachine).toBeLessThan(300);
    expect(machines[7]?.labels.site).toBe('sto');
  });

  it("leave room in a labelled machine's first slot for its record's head", () => {
    const m = machine(3);
    relabel(m, { owner: 'ops' }, labelsOf({ labels: eight(3) }));
    keepOverview(m, JSON.stringify({ hostname: 'm3', cpus: 4 }));
    const slot = m.slot;
    const record = JSON.parse(recordBytes(m).toString('utf8'));
    expect(record.labels).toEqual({ ...eight(3), owner: 'ops' });
    expect(record.board_labels).toEqual(['owner']);
    // The same memory: the first slot is not given up for a bigger one at the first record.
    expect(m.slot).toBe(slot);
  });
});
