import { describe, expect, it } from 'vitest';
import type { ServiceState } from '../../shared/wire/overview.js';
import { flush, ManualClock } from './manual-clock.js';
import { StatusCache } from './status-cache.js';

/** A check runner whose answers the test gives by hand. */
function manualRunner() {
  const waiting: { name: string; answer: (s: ServiceState) => void }[] = [];
  return {
    waiting,
    run: (check: { name: string }) =>
      new Promise<ServiceState>((answer) => waiting.push({ name: check.name, answer })),
  };
}

const CHECKS = [
  { name: 'a', argv: ['a'], cwd: null },
  { name: 'b', argv: ['b'], cwd: null },
];

describe('StatusCache', () => {
  it('answers at once while a check hangs, unknown until the first answer', async () => {
    const runner = manualRunner();
    const cache = new StatusCache(CHECKS, runner.run, new ManualClock(), 2000);
    expect(cache.state('a')).toBe('unknown');
    expect(runner.waiting.map((w) => w.name)).toEqual(['a']);
    // The check never answers; reading again neither waits nor starts a second check.
    expect(cache.state('a')).toBe('unknown');
    expect(runner.waiting).toHaveLength(1);
    expect(cache.state('nope')).toBeNull();
  });

  it('serves an answer until it is older than the ttl, then checks again in the background', async () => {
    const runner = manualRunner();
    const clock = new ManualClock();
    const cache = new StatusCache(CHECKS, runner.run, clock, 2000);
    const all = cache.refresh();
    expect(runner.waiting.map((w) => w.name)).toEqual(['a', 'b']);
    runner.waiting[0]?.answer('running');
    runner.waiting[1]?.answer('stopped');
    await all;
    expect(cache.state('a')).toBe('running');
    expect(cache.state('b')).toBe('stopped');
    await clock.advance(1999);
    expect(cache.state('a')).toBe('running');
    expect(runner.waiting).toHaveLength(2);
    await clock.advance(1);
    expect(cache.state('a')).toBe('running');
    expect(runner.waiting).toHaveLength(3);
    runner.waiting[2]?.answer('stopped');
    await flush();
    expect(cache.state('a')).toBe('stopped');
  });

  it('treats a failing check as unknown', async () => {
    const cache = new StatusCache(
      CHECKS,
      () => Promise.reject(new Error('boom')),
      new ManualClock(),
      2000,
    );
    await cache.refresh();
    expect(cache.state('a')).toBe('unknown');
  });

  it('checks again after invalidate', async () => {
    const runner = manualRunner();
    const cache = new StatusCache(CHECKS, runner.run, new ManualClock(), 60_000);
    const first = cache.refreshOne('a');
    runner.waiting[0]?.answer('stopped');
    await first;
    cache.state('a');
    expect(runner.waiting).toHaveLength(1);
    cache.invalidate('a');
    cache.state('a');
    expect(runner.waiting).toHaveLength(2);
  });
});
