import { describe, expect, it } from 'vitest';
import type { ConfigProblem } from '../../shared/config/config-error.js';
import { CheckBook, type CheckChange } from './check-book.js';
import { type CheckConfig, readChecks } from './check-config.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function setup(extra: Record<string, unknown> = {}, runners: CheckConfig['runners'] = {}) {
  const problems: ConfigProblem[] = [];
  const config = {
    name: 'api',
    type: 'tcp',
    target: 'api.example:443',
    interval: 10,
    runners: { selector: 'role=probe', ...runners },
    ...extra,
  } as CheckConfig;
  const checks = readChecks([config], problems);
  expect(problems).toEqual([]);
  let now = T0;
  const gone = new Set<string>();
  const book = new CheckBook({ now: () => now, runs: (runner) => !gone.has(runner) });
  book.configure(checks);
  const changes: CheckChange[] = [];
  book.subscribe((c) => changes.push(c));
  const result = (runner: string, ok: boolean, more: Record<string, unknown> = {}) => {
    now += 1000;
    book.take(runner, [
      {
        name: 'api',
        ok,
        ms: 12,
        detail: ok ? '' : `refused <b>${runner}</b>`,
        at: new Date(now).toISOString(),
        ...more,
      },
    ]);
  };
  const state = () => book.list()[0]?.state;
  return {
    book,
    changes,
    result,
    state,
    gone,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('CheckBook state', () => {
  it('goes down when quorum runners each failed failure_threshold times in a row, then up', () => {
    const t = setup({ failure_threshold: 2 }, { quorum: 2 });
    t.result('a', false);
    t.result('b', false);
    t.result('a', false);
    expect(t.state()).toBe('unknown');
    t.result('b', false);
    expect(t.state()).toBe('down');
    expect(t.changes).toEqual([
      expect.objectContaining({
        check: 'api',
        state: 'down',
        previous: 'unknown',
        runners: [
          { machine: 'a', detail: 'refused <b>a</b>' },
          { machine: 'b', detail: 'refused <b>b</b>' },
        ],
      }),
    ]);
    expect(t.book.list()[0]?.since).toBe(new Date(T0 + 4000).toISOString());
    // One runner good again: fewer than quorum failing and a success: up.
    t.result('a', true);
    expect(t.state()).toBe('up');
    expect(t.changes[1]).toMatchObject({
      state: 'up',
      previous: 'down',
      runners: [{ machine: 'b' }],
    });
  });

  it('one failing runner under quorum 2 does not take the check down', () => {
    const t = setup({ failure_threshold: 1 }, { quorum: 2 });
    t.result('a', true);
    t.result('b', false);
    t.result('b', false);
    expect(t.state()).toBe('up');
  });

  it('counts a repeated result once (the same `at` from a poll and a report)', () => {
    const t = setup({ failure_threshold: 2 });
    t.result('a', false);
    const [row] = t.book.list();
    const at = row?.runners[0]?.at as string;
    t.book.take('a', [{ name: 'api', ok: false, ms: 1, detail: 'x', at }]);
    t.book.take('a', [{ name: 'api', ok: false, ms: 1, detail: 'x', at: '2025-01-01T00:00:00Z' }]);
    expect(t.state()).toBe('unknown');
    t.result('a', false);
    expect(t.state()).toBe('down');
  });

  it('needs success_threshold good results in a row from a runner to come up', () => {
    const t = setup({ failure_threshold: 1, success_threshold: 3 });
    t.result('a', false);
    expect(t.state()).toBe('down');
    t.result('a', true);
    t.result('a', true);
    t.result('a', false);
    t.result('a', true);
    t.result('a', true);
    expect(t.state()).toBe('down');
    t.result('a', true);
    expect(t.state()).toBe('up');
  });

  it('stops counting results older than 3 intervals and a minute, and runners that no longer run it', () => {
    const t = setup({ failure_threshold: 1 }, { quorum: 1 });
    t.result('a', false);
    expect(t.state()).toBe('down');
    t.advance(3 * 10_000 + 60_000 - 1000);
    t.book.sweep();
    expect(t.state()).toBe('down');
    t.advance(1001);
    t.book.sweep();
    expect(t.state()).toBe('unknown');
    expect(t.book.list()[0]?.since).toBeNull();
    t.result('b', false);
    expect(t.state()).toBe('down');
    t.gone.add('b');
    t.book.sweep();
    expect(t.state()).toBe('unknown');
    // b no longer runs it: its row goes; a's old result stays on show (its `at` tells its age).
    expect(t.book.list()[0]?.runners.map((r) => r.machine)).toEqual(['a']);
    expect(t.changes.map((c) => `${c.previous}→${c.state}`)).toEqual([
      'unknown→down',
      'down→unknown',
      'unknown→down',
      'down→unknown',
    ]);
  });

  it('announces a new certificate once, whichever runner sees it, and not the first one', () => {
    const t = setup({ type: 'tls', failure_threshold: 1 });
    const old = { fingerprint256: 'AA:01', issuer: 'CN=Old CA' };
    const renewed = { fingerprint256: 'BB:02', issuer: 'CN=New CA' };
    t.result('a', true, { cert: old });
    t.result('b', true, { cert: old });
    expect(t.changes.map((c) => c.state)).toEqual(['up']);
    t.result('a', true, { cert: renewed });
    t.result('b', true, { cert: renewed });
    t.result('a', true, { cert: renewed });
    const certs = t.changes.filter((c) => c.cert_changed !== undefined);
    expect(certs).toEqual([
      expect.objectContaining({
        state: 'up',
        previous: 'up',
        cert_changed:
          'certificate changed: fingerprint AA:01 → BB:02, issuer CN=Old CA → CN=New CA',
      }),
    ]);
  });

  it('keeps the soonest certificate expiry among counting runners', () => {
    const t = setup({ type: 'tls' });
    t.result('a', true, { cert_expires_at: '2026-03-01T00:00:00Z' });
    t.result('b', true, { cert_expires_at: '2026-02-01T00:00:00Z' });
    expect(t.book.soonestCertExpiry('api')).toBe(Date.parse('2026-02-01T00:00:00Z'));
  });

  it('a subscriber that throws is reported; the others still hear the change', () => {
    const problems: ConfigProblem[] = [];
    const config = {
      name: 'api',
      type: 'tcp',
      target: 'x.example:1',
      runners: { board: true },
      failure_threshold: 1,
    } as CheckConfig;
    const errors: unknown[] = [];
    const book = new CheckBook({ now: () => T0, onError: (e) => errors.push(e) });
    book.configure(readChecks([config], problems));
    const heard: string[] = [];
    book.subscribe(() => {
      throw new Error('listener broke');
    });
    book.subscribe((c) => heard.push(c.state));
    const at = new Date(T0).toISOString();
    book.take('@board', [{ name: 'api', ok: false, ms: 1, detail: 'refused', at }]);
    expect(heard).toEqual(['down']);
    expect(errors).toHaveLength(1);
  });
});
