import { describe, expect, it } from 'vitest';
import type { CheckResult, HandedCheck } from '../../shared/checks/wire.js';
import type { ConfigProblem } from '../../shared/config/config-error.js';
import { BoardRunner, type RunOne } from './board-runner.js';
import { type CheckConfig, readChecks } from './check-config.js';
import { PRIVATE_REFUSAL } from './private-address.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function checks(raw: CheckConfig[], intervalMs = 40) {
  const problems: ConfigProblem[] = [];
  const read = readChecks(raw, problems);
  expect(problems).toEqual([]);
  return read.map((c) => ({ ...c, intervalMs }));
}

const http = (name: string, extra: Partial<CheckConfig> = {}): CheckConfig => ({
  name,
  type: 'http',
  target: 'http://127.0.0.1:1/',
  runners: { board: true },
  ...extra,
});

/** A run function that records what it was asked and answers at once. */
function recording() {
  const calls: { name: string; guarded: boolean }[] = [];
  const run: RunOne = async (check: HandedCheck, _c, options) => {
    calls.push({ name: check.name, guarded: options.guard !== undefined });
    return { name: check.name, ok: true, ms: 1, detail: '', at: new Date().toISOString() };
  };
  return { calls, run };
}

describe('the board runner', () => {
  it('runs its checks at their interval, guarded unless allow_private, and only those it owns', async () => {
    const taken: [string, CheckResult][] = [];
    const { calls, run } = recording();
    const runner = new BoardRunner(
      (who, results) => {
        for (const r of results) taken.push([who, r]);
      },
      (name) => name !== 'elsewhere',
      run,
    );
    runner.configure(
      checks([
        http('guarded'),
        http('open', { allow_private: true }),
        http('elsewhere'),
        http('agents', { runners: { selector: 'site=fra' } }),
      ]),
    );
    await wait(150);
    runner.stop();
    const named = (n: string) => calls.filter((c) => c.name === n);
    expect(named('guarded').length).toBeGreaterThanOrEqual(3);
    expect(named('guarded').every((c) => c.guarded)).toBe(true);
    expect(named('open').every((c) => !c.guarded)).toBe(true);
    expect(named('elsewhere')).toEqual([]);
    expect(named('agents')).toEqual([]);
    expect(taken.every(([who]) => who === '@board')).toBe(true);
    const after = calls.length;
    await wait(120);
    expect(calls.length).toBe(after);
  });

  it('does not stack runs on a slow one, and drops the result of a check reloaded away', async () => {
    const taken: CheckResult[] = [];
    let started = 0;
    let release: () => void = () => undefined;
    const run: RunOne = (check) => {
      started += 1;
      return new Promise((resolve) => {
        release = () =>
          resolve({ name: check.name, ok: false, ms: 0, detail: PRIVATE_REFUSAL, at: '' });
      });
    };
    const runner = new BoardRunner(
      (_who, results) => taken.push(...results),
      () => true,
      run,
    );
    runner.configure(checks([http('slow')]));
    await wait(150);
    expect(started).toBe(1);
    runner.configure([]);
    release();
    await wait(20);
    expect(taken).toEqual([]);
    runner.stop();
  });
});
