import { describe, expect, it } from 'vitest';
import { type Machine, newMachine } from '../domain/machine.js';
import { emptyMetrics } from '../domain/metrics.js';
import { keepMetrics } from '../view/metric-numbers.js';
import type { NotifyConfigFile } from './config.js';
import { asIs } from './markup.js';
import { renderMessage } from './render.js';
import { RuleEngine } from './rule-engine.js';
import { changeSet, settingsOf, went } from './test-kit.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const S = 1000;
const HOOK = { name: 'hook', url: 'http://127.0.0.1:9/hook' };

function engine(
  rules: NonNullable<NotifyConfigFile['rules']>,
  silenced: (name: string, now: number) => boolean = () => false,
) {
  const settings = settingsOf({
    channels: [HOOK, { name: 'ops', url: 'ntfy://127.0.0.1:9/ops' }],
    rules,
  });
  return new RuleEngine(settings.rules, { silenced, machineUrl: () => null });
}

/** The events of channel `hook` in one evaluation, as "event machine" strings. */
function fired(e: RuleEngine, ...args: Parameters<typeof changeSet>): string[] {
  const batch = e.evaluate(changeSet(...args)).get('hook');
  return (batch?.events ?? []).map(
    (x) => `${x.event} ${x.machine}${x.reminder ? ` r${x.reminder}` : ''}`,
  );
}

describe('rules: down and up', () => {
  it('a machine first seen (down or up) sends nothing; a down after up is sent; its recovery says how long', () => {
    const e = engine([{ events: ['down', 'up'], channels: ['hook'] }]);
    expect(
      fired(e, T0, { transitions: [went('a', T0, 'down', null), went('b', T0, 'up', null)] }),
    ).toEqual([]);
    expect(fired(e, T0 + 5 * S, { transitions: [went('a', T0 + 5 * S, 'up', 'down')] })).toEqual(
      [],
    );
    expect(fired(e, T0 + 10 * S, { transitions: [went('b', T0 + 10 * S, 'down', 'up')] })).toEqual([
      'down b',
    ]);
    const batch = e.evaluate(
      changeSet(T0 + 190 * S, { transitions: [went('b', T0 + 190 * S, 'up', 'down')] }),
    );
    const up = batch.get('hook')?.events[0];
    expect(up).toMatchObject({ event: 'up', machine: 'b', duration_s: 180, previous: 'down' });
    expect(renderMessage([up as never], null, null, asIs).text).toBe(
      '▲ b is up again after 3 min down',
    );
  });

  it('debounce (after): a down that recovers before `after` sends neither down nor up', () => {
    const e = engine([{ events: ['down', 'up'], channels: ['hook'], after: 60 }]);
    expect(fired(e, T0, { transitions: [went('a', T0, 'down', 'up')] })).toEqual([]);
    expect(fired(e, T0 + 30 * S)).toEqual([]);
    expect(fired(e, T0 + 40 * S, { transitions: [went('a', T0 + 40 * S, 'up', 'down')] })).toEqual(
      [],
    );
    // Held for 60 s this time: sent once, when it has held long enough.
    expect(
      fired(e, T0 + 100 * S, { transitions: [went('a', T0 + 100 * S, 'down', 'up')] }),
    ).toEqual([]);
    expect(fired(e, T0 + 159 * S)).toEqual([]);
    expect(fired(e, T0 + 160 * S)).toEqual(['down a']);
    expect(fired(e, T0 + 170 * S)).toEqual([]);
    expect(
      fired(e, T0 + 180 * S, { transitions: [went('a', T0 + 180 * S, 'up', 'down')] }),
    ).toEqual(['up a']);
  });

  it('failures: N fires on the Nth failed sweep in a row', () => {
    const e = engine([{ events: ['down'], channels: ['hook'], failures: 3 }]);
    expect(fired(e, T0, { transitions: [went('a', T0, 'down', 'up')] })).toEqual([]);
    expect(fired(e, T0 + 1)).toEqual([]);
    expect(fired(e, T0 + 2)).toEqual(['down a']);
    expect(fired(e, T0 + 3)).toEqual([]);
  });

  it('repeat reminds while still down, at most repeat_max times, saying since when', () => {
    const e = engine([{ events: ['down'], channels: ['hook'], repeat: 60, repeat_max: 2 }]);
    expect(fired(e, T0, { transitions: [went('a', T0, 'down', 'up')] })).toEqual(['down a']);
    expect(fired(e, T0 + 59 * S)).toEqual([]);
    const reminder = e.evaluate(changeSet(T0 + 60 * S)).get('hook')?.events ?? [];
    expect(reminder.map((x) => x.reminder)).toEqual([1]);
    expect(renderMessage(reminder, null, null, asIs).text).toBe(
      '✖ a still down (since 2026-01-01T00:00:00.000Z): connection refused',
    );
    expect(fired(e, T0 + 120 * S)).toEqual(['down a r2']);
    expect(fired(e, T0 + 180 * S)).toEqual([]);
    expect(fired(e, T0 + 10_000 * S)).toEqual([]);
  });

  it('up alone never fires: only the recovery of a down the rule sent', () => {
    const e = engine([{ events: ['up'], channels: ['hook'] }]);
    fired(e, T0, { transitions: [went('a', T0, 'down', 'up')] });
    expect(fired(e, T0 + S, { transitions: [went('a', T0 + S, 'up', 'down')] })).toEqual([]);
  });

  it('machine globs route machines to channels', () => {
    const e = engine([
      { events: ['down'], channels: ['hook'], machines: ['web*'] },
      { events: ['down'], channels: ['ops'], machines: ['db?'] },
    ]);
    const out = e.evaluate(
      changeSet(T0, {
        transitions: ['web1', 'WEB2', 'db1', 'db10'].map((n) => went(n, T0, 'down', 'up')),
      }),
    );
    expect(out.get('hook')?.events.map((x) => x.machine)).toEqual(['web1', 'WEB2']);
    expect(out.get('ops')?.events.map((x) => x.machine)).toEqual(['db1']);
  });
});

describe('rules: grouping and silence', () => {
  it('1,000 machines down in one sweep are one batch per channel, each machine once', () => {
    const e = engine([
      { events: ['down'], channels: ['hook', 'ops'] },
      { events: ['down', 'up'], channels: ['hook'] },
    ]);
    const names = Array.from({ length: 1000 }, (_, i) => `m${i}`);
    const out = e.evaluate(
      changeSet(T0, { transitions: names.map((n) => went(n, T0, 'down', 'up')) }),
    );
    expect([...out.keys()].sort()).toEqual(['hook', 'ops']);
    expect(out.get('hook')?.events.length).toBe(1000);
    expect(out.get('ops')?.events.length).toBe(1000);
    const text = renderMessage(out.get('hook')?.events ?? [], null, null, asIs);
    expect(text.title).toBe('Panoptes: 1000 down');
    expect(text.text.split('\n').at(-1)).toBe('… and 900 more');
  });

  it('a silenced machine is held back once, and sent if still down when the silence ends', () => {
    let until = T0 + 100 * S;
    const e = engine(
      [{ events: ['down', 'up'], channels: ['hook'], repeat: 10 }],
      (_n, now) => now < until,
    );
    const first = e
      .evaluate(changeSet(T0, { transitions: [went('a', T0, 'down', 'up')] }))
      .get('hook');
    expect(first?.events).toEqual([]);
    expect(first?.silenced.map((x) => x.machine)).toEqual(['a']);
    expect(e.evaluate(changeSet(T0 + 50 * S)).get('hook')).toBeUndefined();
    expect(fired(e, T0 + 100 * S)).toEqual(['down a']);
    until = T0 + 200 * S;
    // Reminders are not sent while silenced, and a recovery during a silence is held back.
    expect(fired(e, T0 + 150 * S)).toEqual([]);
    const up = e
      .evaluate(changeSet(T0 + 160 * S, { transitions: [went('a', T0 + 160 * S, 'up', 'down')] }))
      .get('hook');
    expect(up?.silenced.map((x) => x.event)).toEqual(['up']);
  });
});

function machine(name: string, metrics: Partial<ReturnType<typeof emptyMetrics>>): Machine {
  const m: Machine = {
    ...newMachine({ name, origin: 'configured', location: 'http://x', firstSeen: T0 }),
    state: 'up',
    lastSeen: T0,
    error: null,
    observed: true,
    sessions: [],
  };
  // As the registry keeps them: in place (metric-numbers.ts).
  keepMetrics(m, { ...emptyMetrics(), ...metrics });
  return m;
}

describe('rules: thresholds, bells, late, failed actions', () => {
  it('a metric past its limit for `for` seconds fires once, per disk on its own; below it resets', () => {
    const e = engine([
      { events: ['threshold'], channels: ['hook'], metric: 'disk', above: 0.9, for: 300 },
    ]);
    const full = (ratioData: number) =>
      machine('a', {
        disks: [
          { path: '/', ratio: 0.5 },
          { path: '/data', ratio: ratioData },
        ],
      });
    expect(fired(e, T0, { machines: [full(0.95)] })).toEqual([]);
    const out =
      e.evaluate(changeSet(T0 + 300 * S, { machines: [full(0.96)] })).get('hook')?.events ?? [];
    expect(out).toMatchObject([
      { event: 'threshold', metric: 'disk', path: '/data', value: 0.96, limit: 0.9 },
    ]);
    expect(renderMessage(out, null, null, asIs).text).toBe(
      '⚠ a disk /data at 96 % (above 90 %) since 2026-01-01T00:00:00.000Z',
    );
    expect(fired(e, T0 + 400 * S, { machines: [full(0.96)] })).toEqual([]);
    expect(fired(e, T0 + 500 * S, { machines: [full(0.5)] })).toEqual([]);
    expect(fired(e, T0 + 600 * S, { machines: [full(0.97)] })).toEqual([]);
  });

  it('a threshold rule with a path watches that disk only', () => {
    const e = engine([
      { events: ['threshold'], channels: ['hook'], metric: 'disk', path: '/', above: 0.8 },
    ]);
    const m = machine('a', {
      disks: [
        { path: '/', ratio: 0.5 },
        { path: '/data', ratio: 0.99 },
      ],
    });
    expect(fired(e, T0, { machines: [m] })).toEqual([]);
    const m2 = machine('a', { disks: [{ path: '/', ratio: 0.85 }] });
    expect(fired(e, T0 + S, { machines: [m2] })).toEqual(['threshold a']);
  });

  it('bells pass the why filter (default attention and error); late and failed actions fire', () => {
    const e = engine([
      { events: ['bell'], channels: ['hook'] },
      { events: ['late', 'action_failed'], channels: ['hook'] },
    ]);
    const bell = (why: string) => ({
      name: 'a',
      at: T0,
      session: 's',
      why,
      text: 'hi',
      rangAt: '',
    });
    const out = e.evaluate(
      changeSet(T0, {
        bells: [bell('finished'), bell('attention'), bell('error')],
        late: [
          { name: 'b', at: T0, late: true },
          { name: 'c', at: T0, late: false },
        ],
        actionsFailed: [
          { name: 'd', at: T0, what: 'backup', action: 'start', status: 502, detail: 'no' },
        ],
      }),
    );
    expect(out.get('hook')?.events.map((x) => `${x.event} ${x.machine} ${x.why ?? ''}`)).toEqual([
      'late b ',
      'bell a attention',
      'bell a error',
      'action_failed d ',
    ]);
  });
});
