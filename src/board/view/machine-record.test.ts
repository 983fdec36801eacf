import { describe, expect, it } from 'vitest';
import { type Machine, newMachine } from '../domain/machine.js';
import { keepOverview, overviewOf, recordBytes } from './machine-record.js';

function machine(): Machine {
  const m = newMachine({
    name: 'lab1',
    origin: 'announced',
    location: 'http://lab1:8701',
    firstSeen: 0,
  });
  return Object.assign(m, { state: 'up', lastSeen: 0, observed: true });
}

const record = (m: Machine) => JSON.parse(recordBytes(m).toString('utf8'));

describe('a machine’s slot', () => {
  it('lists a machine with no overview yet with "overview": null', () => {
    const m = machine();
    expect(overviewOf(m)).toBeNull();
    expect(record(m)).toMatchObject({ name: 'lab1', overview: null });
  });

  it('writes a new overview that fits in place, and a larger one in a new slot', () => {
    const m = machine();
    keepOverview(m, JSON.stringify({ hostname: 'a'.repeat(100) }));
    const slot = m.slot;
    expect(record(m).overview).toEqual({ hostname: 'a'.repeat(100) });
    // Shorter, then as long again (text, then bytes as the poller sends them): the same memory.
    keepOverview(m, '{"hostname":"b"}');
    expect(record(m).overview).toEqual({ hostname: 'b' });
    keepOverview(m, Buffer.from(JSON.stringify({ hostname: 'c'.repeat(100) })));
    expect(m.slot).toBe(slot);
    expect(record(m).overview).toEqual({ hostname: 'c'.repeat(100) });
    // Far larger: a new slot, and the record still whole.
    keepOverview(m, JSON.stringify({ hostname: 'd'.repeat(5000) }));
    expect(m.slot).not.toBe(slot);
    expect(record(m).overview).toEqual({ hostname: 'd'.repeat(5000) });
    expect(overviewOf(m)?.toString()).toBe(JSON.stringify({ hostname: 'd'.repeat(5000) }));
  });

  it('makes room for a head longer than the slot leaves before the overview', () => {
    const m = machine();
    keepOverview(m, '{"cpu_use":0.5}');
    expect(record(m).error).toBeNull();
    m.error = 'é'.repeat(600);
    m.bytes = null;
    expect(record(m)).toMatchObject({ error: 'é'.repeat(600), overview: { cpu_use: 0.5 } });
    m.error = null;
    m.bytes = null;
    keepOverview(m, '{"cpu_use":0.25}');
    expect(record(m)).toMatchObject({ error: null, overview: { cpu_use: 0.25 } });
  });
});
