import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { toLabels } from '../../shared/labels.js';
import { parseSelector } from '../../shared/selector.js';
import { EventHub } from '../domain/events.js';
import { Journal, type JournalStore } from '../domain/journal.js';
import { relabel } from '../domain/machine-labels.js';
import { Registry } from '../domain/registry.js';
import { BOARD_WHO } from '../domain/who.js';
import type { JournalEntry } from '../schemas.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { machineMemory } from '../view/machine-memory.js';
import { SelectorSilences } from './selector-silences.js';

class Entries implements JournalStore {
  entries: JournalEntry[] = [];
  append(entry: JournalEntry): Promise<void> {
    this.entries.push(entry);
    return Promise.resolve();
  }
  remove(): Promise<void> {
    return Promise.resolve();
  }
}

const MINUTE = 60_000;

function setup() {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const machines = ['fra1', 'ams1'].map((name) => {
    const url = `http://${name}:8701`;
    return { name, url, location: url, key: 'selector-silences-test-key' };
  });
  const registry = new Registry(clock, new EventHub(), machines, 100, machineMemory(clock));
  registry.update('fra1', (m) => relabel(m, toLabels({ site: 'fra' })));
  registry.update('ams1', (m) => relabel(m, toLabels({ site: 'ams' })));
  const entries = new Entries();
  const journal = new Journal(clock, new EventHub(), entries, []);
  const state = new MemoryStore();
  const silences = new SelectorSilences(clock, registry, journal, state.selectorSilences);
  return { clock, registry, entries, state, silences };
}

describe('selector silences', () => {
  it('cover the machines selected when judged (one relabelled into it too), run out journaled once, records cleared', async () => {
    const { clock, registry, entries, state, silences } = setup();
    const answer = await silences.start(BOARD_WHO, parseSelector('site=fra'), 10, 'rack move');
    expect(answer.status).toBe(201);
    const until = clock.now() + 10 * MINUTE;
    expect(silences.covers('fra1', clock.now())).toBe(true);
    expect(silences.covers('ams1', clock.now())).toBe(false);
    expect(registry.get('fra1')?.coveredUntil).toBe(until);
    expect(registry.get('ams1')?.coveredUntil).toBeNull();

    // Relabelled into the selection: covered at once; its record at the next change set.
    registry.update('ams1', (m) => relabel(m, toLabels({ site: 'fra' })));
    expect(silences.covers('ams1', clock.now())).toBe(true);
    expect(silences.expire(clock.now())).toBeNull();
    expect(registry.get('ams1')?.coveredUntil).toBe(until);

    clock.advance(10 * MINUTE);
    expect(silences.covers('fra1', clock.now())).toBe(false);
    await silences.expire(clock.now());
    expect(registry.get('fra1')?.coveredUntil).toBeNull();
    expect(registry.get('ams1')?.coveredUntil).toBeNull();
    expect(await state.selectorSilences.load()).toEqual([]);
    expect(silences.list()).toEqual([]);
    expect(entries.entries.map((e) => [e.target, e.outcome, e.who])).toEqual([
      ['selector site=fra', 'silenced', 'board'],
      ['selector site=fra', 'unsilenced', 'board'],
    ]);
  });

  it('take those another board keeps (sync), the latest end shown; a row that no longer parses silences nothing', async () => {
    const { clock, registry, silences } = setup();
    const later = clock.now() + 60 * MINUTE;
    const sooner = clock.now() + 5 * MINUTE;
    silences.sync(
      [
        { id: 'a', selector: 'site in (fra,ams)', until: sooner, reason: '' },
        { id: 'b', selector: 'site=fra', until: later, reason: '' },
        { id: 'c', selector: 'site in (', until: later, reason: '' },
      ],
      silences.version,
    );
    expect(silences.list().map((s) => s.id)).toEqual(['a', 'b']);
    expect(registry.get('fra1')?.coveredUntil).toBe(later);
    expect(registry.get('ams1')?.coveredUntil).toBe(sooner);
    silences.sync([], silences.version);
    expect(registry.get('fra1')?.coveredUntil).toBeNull();
    expect(silences.covers('fra1', clock.now())).toBe(false);
  });

  it('end: 404 for an unknown id; ended by a person, journaled', async () => {
    const { silences, entries } = setup();
    expect((await silences.end(BOARD_WHO, 'nosuch')).status).toBe(404);
    const started = await silences.start(BOARD_WHO, parseSelector('site=ams'), 5, '');
    const { id } = started.body as { id: string };
    expect((await silences.end(BOARD_WHO, id)).status).toBe(200);
    expect(silences.list()).toEqual([]);
    expect(entries.entries.map((e) => e.outcome)).toEqual(['silenced', 'unsilenced']);
  });
});
