import { describe, expect, it } from 'vitest';
import { ManualClock } from './manual-clock.js';
import { appendNote, runArgv, runSummary } from './run-argv.js';
import { FakeSpawner } from './test-kit.js';

describe('runArgv', () => {
  it('answers the exit code and the output', async () => {
    const spawner = new FakeSpawner();
    const result = await runArgv(spawner.spawn, new ManualClock(), ['exit-3', 'oops'], {
      cwd: null,
      timeoutMs: 1000,
    });
    expect(result).toEqual({
      kind: 'exited',
      exit: { code: 3, signal: null },
      timedOut: false,
      output: 'oops',
    });
  });

  it('says why a program could not start', async () => {
    const spawner = new FakeSpawner();
    const result = await runArgv(spawner.spawn, new ManualClock(), ['missing'], {
      cwd: null,
      timeoutMs: 1000,
    });
    expect(result).toEqual({
      kind: 'failed',
      reason: 'cannot run missing: no such program or working directory',
    });
  });

  it('sends SIGTERM at the time-out and SIGKILL after the grace period', async () => {
    const spawner = new FakeSpawner();
    spawner.behave = (child) => {
      child.start().output('working\n');
      child.onKill = (signal) => {
        if (signal === 'SIGKILL') child.exit(null, 'SIGKILL');
      };
    };
    const clock = new ManualClock();
    const running = runArgv(spawner.spawn, clock, ['stubborn'], {
      cwd: null,
      timeoutMs: 5000,
      killGraceMs: 2000,
    });
    await clock.advance(4999);
    expect(spawner.children[0]?.signals).toEqual([]);
    await clock.advance(1);
    expect(spawner.children[0]?.signals).toEqual(['SIGTERM']);
    await clock.advance(1999);
    expect(spawner.children[0]?.signals).toEqual(['SIGTERM']);
    await clock.advance(1);
    const result = await running;
    expect(spawner.children[0]?.signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(result).toMatchObject({ kind: 'exited', timedOut: true });
    expect(runSummary(result, 5000)).toBe('working\n[timed out after 5 s; killed by SIGKILL]');
    expect(clock.timers).toBe(0);
  });

  it('cancels its timers when the command ends in time', async () => {
    const spawner = new FakeSpawner();
    const clock = new ManualClock();
    await runArgv(spawner.spawn, clock, ['exit-0'], { cwd: null, timeoutMs: 5000 });
    expect(clock.timers).toBe(0);
  });
});

describe('appendNote', () => {
  it('stays within the limit, keeping the note', () => {
    const out = appendNote('x'.repeat(5000), '[note]', 100);
    expect(out).toHaveLength(100);
    expect(out.endsWith('x\n[note]')).toBe(true);
  });
});
