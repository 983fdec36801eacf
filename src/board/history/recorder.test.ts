import { describe, expect, it } from 'vitest';
import type { ChangeSet } from '../domain/change-set.js';
import { type Machine, newMachine } from '../domain/machine.js';
import { emptyMetrics } from '../domain/metrics.js';
import { changeSet } from '../notify/test-kit.js';
import { MemoryHistoryStore } from '../store/memory/history-store.js';
import { keepMetrics } from '../view/metric-numbers.js';
import type { HistoryStore, WriteBatch } from './history-store.js';
import { HistoryRecorder } from './recorder.js';
import { HISTORY_DEFAULTS } from './settings.js';

const T0 = 1_700_000_100; // epoch seconds, where a 5-minute bucket starts

function machine(name: string, state: 'up' | 'down' | null, cpu: number | null = null): Machine {
  const m = newMachine({ name, origin: 'announced', location: '', firstSeen: 0 });
  if (state === null) return m;
  m.observed = true;
  m.state = state;
  keepMetrics(m, { ...emptyMetrics(), cpu, load: 2, bells: 1 });
  return m;
}

/** A change set closed at `atS` (epoch seconds) over these machines. */
const set = (atS: number, machines: Machine[]): ChangeSet => changeSet(atS * 1000, { machines });

describe('the history recorder', () => {
  it('records each sweep as columns, observed machines only, and folds them into the buckets', async () => {
    const store = new MemoryHistoryStore();
    const written: WriteBatch[] = [];
    const recorder = new HistoryRecorder(
      store,
      HISTORY_DEFAULTS,
      (e) => {
        throw e;
      },
      (b) => written.push(b),
    );
    const a = machine('a', 'up', 0.25);
    const fleet = [a, machine('b', 'down', 0.5), machine('never', null)];
    recorder.record(set(T0, fleet));
    await recorder.settled();
    expect(written[0]?.samples).toEqual([]);
    expect(written[0]?.sweeps?.map((s) => [s.t, s.names, [...s.up]])).toEqual([
      [T0, ['a', 'b'], [1, 0]],
    ]);
    keepMetrics(a, { ...emptyMetrics(), cpu: 0.75, load: 2, bells: 1 });
    recorder.record(set(T0 + 10, fleet));
    await recorder.settled();
    const raw = await store.samples('a', 'raw', T0, T0 + 20);
    expect(raw.map((r) => [r.t, r.up, r.avg.cpu, r.max.cpu, r.avg.load, r.avg.mem])).toEqual([
      [T0, 1, 0.25, 0.25, 2, null],
      [T0 + 10, 1, 0.75, 0.75, 2, null],
    ]);
    // A down machine's numbers are not recorded, whatever it kept.
    expect((await store.samples('b', 'raw', T0, T0 + 20)).map((r) => [r.up, r.avg.cpu])).toEqual([
      [0, null],
      [0, null],
    ]);
    // The next bucket's first sweep hands out the last one's aggregate.
    recorder.record(set(T0 + 300, fleet));
    await recorder.settled();
    const m5 = await store.samples('a', 'm5', T0, T0 + 300);
    expect(m5.map((r) => [r.t, r.n, r.up, r.avg.cpu, r.max.cpu])).toEqual([[T0, 2, 1, 0.5, 0.75]]);
  });

  it('keeps failed sweeps while the store is away, merged, and sheds none below the bound', async () => {
    let away = true;
    let back: () => void = () => undefined;
    const memory = new MemoryHistoryStore();
    const store: HistoryStore = Object.assign(Object.create(memory) as HistoryStore, {
      write: (batch: WriteBatch) =>
        away ? Promise.reject(new Error('away')) : memory.write(batch),
    });
    const errors: unknown[] = [];
    const recorder = new HistoryRecorder(
      store,
      HISTORY_DEFAULTS,
      (e) => errors.push(e),
      () => undefined,
      () =>
        new Promise<void>((resolve) => {
          back = resolve;
        }),
    );
    const fleet = [machine('a', 'up', 0.5)];
    recorder.record(set(T0, fleet));
    await new Promise((r) => setTimeout(r, 20));
    recorder.record(set(T0 + 10, fleet));
    recorder.record(set(T0 + 20, fleet));
    await new Promise((r) => setTimeout(r, 20));
    away = false;
    back();
    await recorder.settled();
    expect(errors.length).toBeGreaterThan(0);
    expect((await memory.samples('a', 'raw', T0, T0 + 30)).map((r) => r.t)).toEqual([
      T0,
      T0 + 10,
      T0 + 20,
    ]);
    expect(recorder.shedTotal).toBe(0);
  });
});
