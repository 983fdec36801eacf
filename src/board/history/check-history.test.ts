import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { MemoryHistoryStore } from '../store/memory/history-store.js';
import { checkSeries, isCheckSeries } from './check-history.js';
import { History } from './history.js';
import { HISTORY_DEFAULTS } from './settings.js';

const T0 = 1_700_000_100_000; // ms, where a 5-minute bucket starts

function history() {
  const clock = new ManualClock(T0);
  const store = new MemoryHistoryStore();
  const h = new History(store, HISTORY_DEFAULTS, clock, {
    onError: (e) => {
      throw e;
    },
  });
  return { clock, store, h };
}

describe('the checks history (memory engine)', () => {
  it('answers exact uptime from each runner’s changes, the mean over runners', async () => {
    const { clock, h } = history();
    const sample = (runner: string, atS: number, ok: boolean) => ({
      check: 'api',
      runner,
      at: T0 + atS * 1000,
      ok,
      ms: ok ? 10 : null,
    });
    // a: up 0–60 s, down 60–90 s, up 90–120 s (90 s of 120 up); b: up from 60 s on (60 of 60).
    h.checks.record([sample('a', 0, true), sample('a', 30, true), sample('a', 60, false)]);
    h.checks.record([sample('a', 90, true), sample('b', 60, true)]);
    clock.advance(120_000);
    await h.checks.settled();
    expect(await h.checks.uptime('api', T0, T0 + 120_000)).toBeCloseTo((0.75 + 1) / 2, 6);
    // A window before b was seen counts a alone: up 0–60 s.
    expect(await h.checks.uptime('api', T0, T0 + 60_000)).toBeCloseTo(1, 6);
    expect(await h.checks.uptime('nosuch', T0, T0 + 60_000)).toBeNull();
  });

  it('charts each runner, keeps its series out of the machines’ uptime, and forgets a removed check', async () => {
    const { clock, store, h } = history();
    for (let i = 0; i < 10; i += 1) {
      h.checks.record([
        { check: 'api', runner: 'web1', at: T0 + i * 60_000, ok: i % 2 === 0, ms: 20 },
        { check: 'api', runner: '@board', at: T0 + i * 60_000, ok: true, ms: 40 },
      ]);
    }
    clock.advance(11 * 60_000);
    await h.checks.settled();
    const series = await h.checks.series('api', T0 / 1000, T0 / 1000 + 660);
    expect(series.map((s) => s.runner)).toEqual(['@board', 'web1']);
    const web1 = series[1]?.points ?? [];
    expect(web1.reduce((n, p) => n + p.ok, 0) / web1.length).toBeCloseTo(0.5, 6);
    expect(series[0]?.points.every((p) => p.ok === 1 && p.ms === 40)).toBe(true);
    expect(isCheckSeries(checkSeries('api', 'web1'))).toBe(true);
    expect(await h.uptime([])).toEqual([]);
    expect(await h.has(checkSeries('api', 'web1'))).toBe(false);
    // The first 5-minute bucket was written when it closed (the second is open).
    expect((await store.samples(checkSeries('api', 'web1'), 'm5', 0, 2 ** 31)).length).toBe(1);

    h.checks.forgotten('api');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await h.checks.settled();
    expect(await store.has(checkSeries('api', 'web1'))).toBe(false);
    expect(await h.checks.series('api', T0 / 1000, T0 / 1000 + 660)).toEqual([]);
  });
});
