import { describe, expect, it } from 'vitest';
import { type Condition, ConditionError } from '../../shared/checks/conditions.js';
import type { CheckResult, HandedCheck } from '../../shared/checks/wire.js';
import { ManualClock } from '../domain/manual-clock.js';
import { CheckRunner, RUNNING_MAX } from './check-runner.js';

function check(name: string, interval_s = 10, conditions: string[] = []): HandedCheck {
  return { name, type: 'tcp', target: '127.0.0.1:1', interval_s, timeout_s: 1, conditions };
}

/** A condition parser for the tests: `bad…` does not parse; anything else holds. */
function parse(text: string): Condition {
  if (text.startsWith('bad')) throw new ConditionError(3, 'unknown placeholder');
  return { text, placeholders: [], check: () => null };
}

/** A runner whose runs are recorded and held open until the test releases them. */
function kit(random = () => 0.5) {
  const clock = new ManualClock();
  const started: { name: string; at: number; release: (ok: boolean) => void }[] = [];
  const runner = new CheckRunner({
    clock,
    random,
    parse,
    run: (c) =>
      new Promise<CheckResult>((resolve) => {
        started.push({
          name: c.name,
          at: clock.now(),
          release: (ok) =>
            resolve({
              name: c.name,
              ok,
              ms: 5,
              detail: ok ? '' : 'refused',
              at: new Date(clock.now()).toISOString(),
            }),
        });
      }),
  });
  return { clock, started, runner };
}

describe('the agent’s check runner', () => {
  it('says version "" and no results before anything is handed', () => {
    const { runner } = kit();
    expect(runner.state()).toEqual({ checks_version: '' });
  });

  it('spreads the first runs over the first interval, then runs each at its interval', async () => {
    let i = 0;
    const spread = [0.1, 0.9];
    const { clock, started, runner } = kit(() => spread[i++] ?? 0);
    const t0 = clock.now();
    runner.take({ version: 'v1', checks: [check('a', 10), check('b', 10)] });
    await clock.advance(999);
    expect(started).toEqual([]);
    await clock.advance(1);
    expect(started.map((s) => [s.name, s.at - t0])).toEqual([['a', 1000]]);
    started[0]?.release(true);
    await clock.advance(8000);
    expect(started.map((s) => [s.name, s.at - t0])).toEqual([
      ['a', 1000],
      ['b', 9000],
    ]);
    started[1]?.release(false);
    await clock.advance(2000);
    expect(started.map((s) => [s.name, s.at - t0])).toEqual([
      ['a', 1000],
      ['b', 9000],
      ['a', 11_000],
    ]);
    const state = runner.state() as { checks_version: string; checks: CheckResult[] };
    expect(state.checks_version).toBe('v1');
    expect(state.checks.map((r) => [r.name, r.ok, r.detail])).toEqual([
      ['a', true, ''],
      ['b', false, 'refused'],
    ]);
  });

  it('asks for a report soon after a failed run and after the first good run that follows one', async () => {
    const { clock, started, runner } = kit(() => 0);
    let urgent = 0;
    runner.onUrgent(() => {
      urgent += 1;
    });
    runner.take({ version: 'v1', checks: [check('a', 1)] });
    const run = async (ok: boolean) => {
      await clock.advance(1000);
      started.at(-1)?.release(ok);
      await clock.advance(0);
    };
    await run(true);
    expect(urgent).toBe(0);
    await run(false);
    expect(urgent).toBe(1);
    await run(false);
    expect(urgent).toBe(2);
    await run(true);
    expect(urgent).toBe(3);
    await run(true);
    expect(urgent).toBe(3);
  });

  it(`runs at most ${RUNNING_MAX} checks at once; the others wait for a free slot`, async () => {
    const { clock, started, runner } = kit(() => 0);
    const many = Array.from({ length: RUNNING_MAX + 4 }, (_, n) => check(`c${n}`, 60));
    runner.take({ version: 'v', checks: many });
    await clock.advance(1);
    expect(started).toHaveLength(RUNNING_MAX);
    for (const s of started.slice(0, 3)) s.release(true);
    await clock.advance(1);
    expect(started).toHaveLength(RUNNING_MAX + 3);
    expect(new Set(started.map((s) => s.name)).size).toBe(RUNNING_MAX + 3);
  });

  it('gives a check whose condition does not parse a failed result, and never runs it', async () => {
    const { clock, started, runner } = kit();
    runner.take({ version: 'v', checks: [check('x', 1, ['[CONNECTED] == true', 'bad [X]'])] });
    await clock.advance(5000);
    expect(started).toEqual([]);
    const state = runner.state() as { checks: CheckResult[] };
    expect(state.checks).toHaveLength(1);
    expect(state.checks[0]).toMatchObject({ name: 'x', ok: false });
    expect(state.checks[0]?.detail).toBe(
      'condition 2 does not parse: unknown placeholder at position 4: bad [X]',
    );
  });

  it('keeps unchanged checks going, stops removed ones and restarts changed ones', async () => {
    const { clock, started, runner } = kit(() => 0);
    runner.take({ version: 'v1', checks: [check('keep', 10), check('drop', 10)] });
    await clock.advance(1);
    for (const s of started) s.release(true);
    await clock.advance(1);
    expect((runner.state() as { checks: CheckResult[] }).checks).toHaveLength(2);
    runner.take({ version: 'v2', checks: [check('keep', 10), check('new', 10)] });
    const state = runner.state() as { checks_version: string; checks: CheckResult[] };
    expect(state.checks_version).toBe('v2');
    // The kept check's result stays; the dropped one's is gone; the new one has none yet.
    expect(state.checks.map((r) => r.name)).toEqual(['keep']);
    started.length = 0;
    await clock.advance(10_000);
    expect(started.map((s) => s.name).sort()).toEqual(['keep', 'new']);
  });

  it('stops every timer when stopped', async () => {
    const { clock, started, runner } = kit(() => 0);
    runner.take({ version: 'v', checks: [check('a', 1)] });
    runner.stop();
    await clock.advance(5000);
    expect(started).toEqual([]);
    expect(clock.timers).toBe(0);
  });
});
