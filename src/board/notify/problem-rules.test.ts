import { describe, expect, it } from 'vitest';
import type { ContainerChange, DiskHealthChange } from '../domain/change-set.js';
import { type Machine, newMachine } from '../domain/machine.js';
import type { ContainerProblem } from '../domain/machine-now.js';
import { emptyMetrics } from '../domain/metrics.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { keepMetrics } from '../view/metric-numbers.js';
import type { NotifyConfigFile } from './config.js';
import type { NotifyEvent } from './event.js';
import { asIs } from './markup.js';
import { renderMessage, titleOf } from './render.js';
import { RuleEngine } from './rule-engine.js';
import { SentAlerts } from './sent-alerts.js';
import { changeSet, settingsOf, went } from './test-kit.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const S = 1000;

function engine(
  rules: NonNullable<NotifyConfigFile['rules']>,
  silenced: (name: string, now: number) => boolean = () => false,
) {
  const settings = settingsOf({ channels: [{ name: 'hook', url: 'http://127.0.0.1:9/h' }], rules });
  return new RuleEngine(settings.rules, { silenced, machineUrl: () => null });
}

/** A container's change on machine `name`, as machine-watch.ts tells it. */
function container(
  name: string,
  at: number,
  subject: string,
  problem: ContainerProblem | null,
  previous: ContainerProblem | null,
  since = at,
  state: string | null = problem === 'stopped' ? 'exited' : 'running',
  gone = false,
): ContainerChange {
  return {
    name,
    at,
    container: subject,
    problem,
    previous,
    since,
    state,
    ...(gone ? { gone: true } : {}),
  };
}

const disk = (name: string, at: number, failing: boolean, since = at): DiskHealthChange => ({
  name,
  at,
  device: '/dev/sda',
  failing,
  since,
});

/** What `hook` got in one evaluation, rendered line by line (the board's words, no markup). */
function lines(e: RuleEngine, ...args: Parameters<typeof changeSet>): string[] {
  const events = e.evaluate(changeSet(...args)).get('hook')?.events ?? [];
  return events.length === 0 ? [] : renderMessage(events, null, null, asIs).text.split('\n');
}

describe('rules: container events', () => {
  it('a stop is sent once; its recovery says how long, and only for a stop that was sent', () => {
    const e = engine([{ events: ['container'], channels: ['hook'] }]);
    expect(
      lines(e, T0, {
        containers: [
          container('web1', T0, 'db', 'stopped', null),
          container('web1', T0, 'cache', 'unhealthy', null),
        ],
      }),
    ).toEqual(['✖ web1: container db stopped (exited)', '✖ web1: container cache is unhealthy']);
    expect(lines(e, T0 + 10 * S)).toEqual([]);
    expect(
      lines(e, T0 + 190 * S, {
        containers: [
          container('web1', T0 + 190 * S, 'db', null, 'stopped', T0),
          container('web1', T0 + 190 * S, 'cache', null, 'unhealthy', T0),
        ],
      }),
    ).toEqual([
      '▲ web1: container db is running again after 3 min 10 s',
      '▲ web1: container cache is no longer unhealthy after 3 min 10 s',
    ]);
    // A recovery of a stop this rule never saw sends nothing.
    expect(
      lines(e, T0 + 200 * S, { containers: [container('web1', T0, 'x', null, 'stopped')] }),
    ).toEqual([]);
  });

  it('`after` holds a stop back; a restart within it sends neither; `repeat` reminds', () => {
    const e = engine([{ events: ['container'], channels: ['hook'], after: 60, repeat: 600 }]);
    expect(lines(e, T0, { containers: [container('a', T0, 'db', 'stopped', null)] })).toEqual([]);
    expect(
      lines(e, T0 + 30 * S, {
        containers: [container('a', T0 + 30 * S, 'db', null, 'stopped', T0)],
      }),
    ).toEqual([]);
    expect(
      lines(e, T0 + 40 * S, { containers: [container('a', T0 + 40 * S, 'db', 'stopped', null)] }),
    ).toEqual([]);
    expect(lines(e, T0 + 100 * S)).toEqual(['✖ a: container db stopped (exited)']);
    expect(lines(e, T0 + 200 * S)).toEqual([]);
    expect(lines(e, T0 + 700 * S)).toEqual([
      '✖ a: container db still stopped (since 2026-01-01T00:00:40.000Z)',
    ]);
  });

  it('one container per episode: a machine going down, or its other containers, fire nothing', () => {
    const e = engine([{ events: ['container', 'down'], channels: ['hook'] }]);
    lines(e, T0, { containers: [container('a', T0, 'db', 'stopped', null)] });
    expect(lines(e, T0 + S, { transitions: [went('a', T0 + S, 'down', 'up')] })).toEqual([
      '✖ a is down: connection refused',
    ]);
    expect(lines(e, T0 + 2 * S)).toEqual([]);
  });

  it('a container name filter, a silence, an alert that ends quietly, a machine forgotten', () => {
    let quiet = false;
    const e = engine(
      [{ events: ['container'], channels: ['hook'], containers: ['web*'] }],
      () => quiet,
    );
    expect(
      lines(e, T0, {
        containers: [
          container('a', T0, 'db', 'stopped', null),
          container('a', T0, 'web-1', 'stopped', null),
        ],
      }),
    ).toEqual(['✖ a: container web-1 stopped (exited)']);
    // Removed a day ago: its episode ends without a recovery.
    expect(
      lines(e, T0 + S, {
        containers: [container('a', T0 + S, 'web-1', null, 'stopped', T0, null, true)],
      }),
    ).toEqual([]);
    quiet = true;
    const held = e
      .evaluate(changeSet(T0 + 2 * S, { containers: [container('b', T0, 'web', 'stopped', null)] }))
      .get('hook');
    expect(held?.silenced.map((x) => `${x.event} ${x.container}`)).toEqual(['container web']);
    quiet = false;
    e.evaluate(changeSet(T0 + 3 * S, { containers: [container('c', T0, 'web', 'stopped', null)] }));
    expect(
      lines(e, T0 + 4 * S, {
        removed: ['c'],
        containers: [container('c', T0 + 4 * S, 'web', null, 'stopped', T0)],
      }),
    ).toEqual([]);
  });
});

describe('rules: disk_health and the temp threshold', () => {
  it('a failing disk is sent, and its recovery', () => {
    const e = engine([{ events: ['disk_health'], channels: ['hook'] }]);
    expect(lines(e, T0, { diskHealth: [disk('nas', T0, true)] })).toEqual([
      '✖ nas: disk /dev/sda fails its SMART health check',
    ]);
    expect(
      lines(e, T0 + 3600 * S, { diskHealth: [disk('nas', T0 + 3600 * S, false, T0)] }),
    ).toEqual(['▲ nas: disk /dev/sda passes its SMART health check again after 1 h']);
  });

  it('a disk alert kept in the store is not sent again after a restart; reminders, recovery and a later failure go on', async () => {
    const store = new MemoryStore();
    const rules = [{ events: ['disk_health' as const], channels: ['hook'], repeat: 3600 }];
    const restarted = async () => {
      const settings = settingsOf({
        channels: [{ name: 'hook', url: 'http://127.0.0.1:9/h' }],
        rules,
      });
      const alerts = new SentAlerts(store.alerts, await store.alerts.load(), (error) => {
        throw error;
      });
      const e = new RuleEngine(settings.rules, {
        silenced: () => false,
        machineUrl: () => null,
        alerts,
      });
      return { e, alerts };
    };
    const nas = (passed: boolean | null): Machine => {
      const m = newMachine({
        name: 'nas',
        origin: 'configured',
        location: 'http://x',
        firstSeen: T0,
      });
      m.metrics = { ...emptyMetrics(), smart: [{ device: '/dev/sda', passed }] };
      return m;
    };
    const failing = '✖ nas: disk /dev/sda fails its SMART health check';
    let { e, alerts } = await restarted();
    expect(lines(e, T0, { diskHealth: [disk('nas', T0, true)] })).toEqual([failing]);
    await alerts.settled();
    expect(await store.alerts.load()).toHaveLength(1);

    // A restart: the disk is seen failing "for the first time" again; nothing is sent.
    ({ e, alerts } = await restarted());
    const t1 = T0 + 600 * S;
    expect(lines(e, t1, { diskHealth: [disk('nas', t1, true)] })).toEqual([]);
    // The reminder comes an hour after the alert, not an hour after the restart.
    expect(lines(e, T0 + 3600 * S)).toEqual([
      '✖ nas: disk /dev/sda still fails its SMART health check (since 2026-01-01T00:00:00.000Z)',
    ]);
    await alerts.settled();

    // Another restart; at its first reading the disk passes: the recovery is sent, once.
    ({ e, alerts } = await restarted());
    const t2 = T0 + 7200 * S;
    expect(lines(e, t2, { machines: [nas(null)], changed: new Set(['nas']) })).toEqual([]);
    expect(lines(e, t2, { machines: [nas(true)], changed: new Set(['nas']) })).toEqual([
      '▲ nas: disk /dev/sda passes its SMART health check again after 2 h',
    ]);
    expect(lines(e, t2, { machines: [nas(true)], changed: new Set(['nas']) })).toEqual([]);
    await alerts.settled();
    expect(await store.alerts.load()).toEqual([]);
    // A new failure is a new alert.
    expect(lines(e, t2, { diskHealth: [disk('nas', t2, true)] })).toEqual([failing]);
  });

  it('metric: temp fires on the hottest sensor past the limit, in °C', () => {
    const e = engine([
      { events: ['threshold'], channels: ['hook'], metric: 'temp', above: 80, for: 60 },
      { events: ['threshold'], channels: ['hook'], metric: 'net_rx', above: 1e8 },
    ]);
    const hot = (tempMax: number, netRx: number | null = null): Machine => {
      const m: Machine = {
        ...newMachine({ name: 'gpu1', origin: 'configured', location: 'http://x', firstSeen: T0 }),
        state: 'up',
        observed: true,
      };
      keepMetrics(m, { ...emptyMetrics(), tempMax, netRx });
      return m;
    };
    expect(lines(e, T0, { machines: [hot(85.25)] })).toEqual([]);
    expect(lines(e, T0 + 60 * S, { machines: [hot(86, 2.5e8)] })).toEqual([
      '⚠ gpu1 temp at 86 °C (above 80 °C) since 2026-01-01T00:00:00.000Z',
      '⚠ gpu1 net_rx at 250.0 MB/s (above 100.0 MB/s) since 2026-01-01T00:01:00.000Z',
    ]);
    expect(lines(e, T0 + 120 * S, { machines: [hot(70)] })).toEqual([]);
  });

  it('titles count what a message holds', () => {
    const at = new Date(T0).toISOString();
    const ev = (x: Partial<NotifyEvent>): NotifyEvent => ({
      event: 'container',
      machine: 'a',
      at,
      ...x,
    });
    expect(titleOf([ev({ container: 'db', problem: 'stopped' })])).toBe(
      'Panoptes: a container stopped',
    );
    expect(
      titleOf([
        ev({ problem: 'unhealthy' }),
        ev({ recovered: true, problem: 'stopped' }),
        ev({ event: 'disk_health', device: '/dev/sda' }),
      ]),
    ).toBe('Panoptes: 1 container unhealthy, 1 container back, 1 disk failing');
  });
});
