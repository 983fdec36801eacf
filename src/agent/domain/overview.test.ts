import { describe, expect, it } from 'vitest';
import { Bells } from './bells.js';
import { ManualClock } from './manual-clock.js';
import { OverviewSource, type SystemProbe } from './overview.js';
import { Services } from './services.js';
import { FakeSpawner } from './test-kit.js';

const probe: SystemProbe = {
  hostname: () => 'web1.lan',
  platform: () => 'linux',
  arch: () => 'x64',
  uptimeS: () => 3600,
  load: () => [0.5, 0.25, 0.1],
  cpus: () => [
    { times: { user: 100, nice: 0, sys: 0, idle: 300, irq: 0 } },
    { times: { user: 100, nice: 0, sys: 0, idle: 300, irq: 0 } },
  ],
  memory: () => ({ total: 1000, free: 400 }),
  disks: async () => [{ path: '/', total: 100, free: 40, used: 60 }],
};

describe('OverviewSource', () => {
  it('answers without waiting for a status command that never ends', async () => {
    const spawner = new FakeSpawner(); // `hang` starts and never exits
    const clock = new ManualClock();
    const services = new Services(
      [
        {
          kind: 'command',
          name: 'stuck',
          start: ['exit-0'],
          stop: null,
          status: ['hang'],
          board: [],
          timeoutMs: 1000,
          cwd: null,
        },
      ],
      { machine: 'web1', spawner: spawner.spawn, clock },
    );
    const bells = new Bells(clock);
    bells.ring({ session: 's', why: 'attention', text: 'look' });
    const source = new OverviewSource({
      name: 'web1',
      version: '0.1.0',
      probe,
      services,
      bells,
      clock,
    });
    // The clock never moves, so the status command's time-out never fires: only an overview
    // that does not wait for it can resolve here.
    const overview = await source.overview();
    expect(spawner.of('hang')).toHaveLength(1);
    expect(overview).toEqual({
      name: 'web1',
      hostname: 'web1.lan',
      platform: 'linux',
      arch: 'x64',
      uptime_s: 3600,
      load: [0.5, 0.25, 0.1],
      cpus: 2,
      cpu_use: 0.25,
      memory: { total: 1000, free: 400, used: 600 },
      disks: [{ path: '/', total: 100, free: 40, used: 60 }],
      services: [
        {
          name: 'stuck',
          kind: 'command',
          state: 'unknown',
          actions: ['start'],
          board: [],
          busy: false,
          // Its 1 s time-out and the 2 s it is given after SIGTERM.
          timeout_s: 3,
        },
      ],
      sessions: [
        { session: 's', why: 'attention', text: 'look', at: new Date(clock.now()).toISOString() },
      ],
      version: '0.1.0',
      time: new Date(clock.now()).toISOString(),
    });
  });

  it("carries the config's labels now (a reload may change them), and none when there are none", async () => {
    const clock = new ManualClock();
    let labels: Record<string, string> = { site: 'fra', gpu: '' };
    const source = new OverviewSource({
      name: 'web1',
      version: '0.1.0',
      probe,
      services: new Services([], { machine: 'web1', spawner: new FakeSpawner().spawn, clock }),
      bells: new Bells(clock),
      clock,
      labels: () => labels,
    });
    expect((await source.overview()).labels).toEqual({ site: 'fra', gpu: '' });
    labels = { env: 'dev' };
    expect((await source.overview()).labels).toEqual({ env: 'dev' });
    labels = {};
    expect('labels' in (await source.overview())).toBe(false);
  });
});
