import { describe, expect, it } from 'vitest';
import type { CommandService, ProcessService } from '../service-config.js';
import { flush, ManualClock } from './manual-clock.js';
import { Services } from './services.js';
import { FakeSpawner } from './test-kit.js';

function command(name: string, over: Partial<CommandService> = {}): CommandService {
  return {
    kind: 'command',
    name,
    start: ['exit-0', 'started'],
    stop: ['exit-1', 'failed to stop'],
    status: null,
    board: ['start'],
    timeoutMs: 60_000,
    cwd: null,
    ...over,
  };
}

function processService(name: string, over: Partial<ProcessService> = {}): ProcessService {
  return {
    kind: 'process',
    name,
    run: ['server'],
    board: [],
    stopGraceMs: 10_000,
    cwd: null,
    ...over,
  };
}

function setup(configs: (CommandService | ProcessService)[]) {
  const spawner = new FakeSpawner();
  const clock = new ManualClock();
  const services = new Services(configs, { machine: 'web1', spawner: spawner.spawn, clock });
  return { spawner, clock, services };
}

describe('Services: the policy of /api/do', () => {
  const { services } = setup([command('backup'), command('once', { stop: null, board: [] })]);

  it('404 for a name that is not published, saying so', async () => {
    expect(await services.act('nope', 'start', 'operator')).toEqual({
      status: 404,
      body: { detail: "'nope' is not a service published on web1" },
    });
  });

  it('404 for an action the service does not publish', async () => {
    expect(await services.act('once', 'stop', 'operator')).toEqual({
      status: 404,
      body: { detail: "'once' on web1 does not publish stop" },
    });
  });

  it('403 for the board key outside the board list', async () => {
    expect(await services.act('backup', 'stop', 'board')).toEqual({
      status: 403,
      body: { detail: "the board may not stop 'backup' on web1" },
    });
    expect(await services.act('once', 'start', 'board')).toMatchObject({ status: 403 });
  });

  it('the board key may do what the board list allows; the token anything published', async () => {
    expect(await services.act('backup', 'start', 'board')).toEqual({
      status: 200,
      body: { what: 'backup', action: 'start', ok: true, exit_code: 0, output: 'started' },
    });
    expect(await services.act('backup', 'stop', 'operator')).toEqual({
      status: 200,
      body: { what: 'backup', action: 'stop', ok: false, exit_code: 1, output: 'failed to stop' },
    });
  });
});

describe('Services: command services', () => {
  it('409 while an action on the same service runs; free again afterwards', async () => {
    const { services, spawner } = setup([command('slow', { start: ['hang'], stop: ['exit-0'] })]);
    const first = services.act('slow', 'start', 'operator');
    await flush();
    expect(services.views()[0]?.busy).toBe(true);
    expect(await services.act('slow', 'stop', 'operator')).toEqual({
      status: 409,
      body: { detail: "'slow' is busy: another action on it is still running" },
    });
    spawner.of('hang')[0]?.exit(0);
    expect((await first).status).toBe(200);
    expect((await services.act('slow', 'stop', 'operator')).status).toBe(200);
  });

  it('times out: ok false, the output says so', async () => {
    const { services, clock } = setup([command('slow', { start: ['hang'], timeoutMs: 3000 })]);
    const run = services.act('slow', 'start', 'operator');
    await clock.advance(3000);
    expect(await run).toEqual({
      status: 200,
      body: {
        what: 'slow',
        action: 'start',
        ok: false,
        exit_code: null,
        output: '[timed out after 3 s; killed by SIGTERM]',
      },
    });
  });

  it('a program that cannot start is ok false with the reason', async () => {
    const { services } = setup([command('x', { start: ['missing'] })]);
    expect((await services.act('x', 'start', 'operator')).body).toMatchObject({
      ok: false,
      exit_code: null,
      output: 'cannot run missing: no such program or working directory',
    });
  });

  it('states from the status command: exit 0 running, else stopped, no command unknown', async () => {
    const { services } = setup([
      command('up', { status: ['exit-0'] }),
      command('down', { status: ['exit-3'] }),
      command('none'),
      command('gone', { status: ['missing'] }),
    ]);
    await services.refreshStatus();
    expect(services.views().map((v) => [v.name, v.state])).toEqual([
      ['up', 'running'],
      ['down', 'stopped'],
      ['none', 'unknown'],
      ['gone', 'unknown'],
    ]);
  });

  it('a hanging status command is killed at its time-out and the state is unknown', async () => {
    const { services, clock, spawner } = setup([command('h', { status: ['hang'] })]);
    expect(services.views()[0]?.state).toBe('unknown');
    await clock.advance(2000);
    expect(spawner.of('hang')[0]?.signals).toEqual(['SIGTERM']);
    expect(services.views()[0]?.state).toBe('unknown');
  });

  it('checks the status again right after an action', async () => {
    const { services, spawner } = setup([command('s', { status: ['exit-0'] })]);
    await services.refreshStatus();
    await services.act('s', 'start', 'operator');
    expect(spawner.of('exit-0').length).toBe(3); // first check, the action, the check after it
  });
});

describe('Services: process services', () => {
  it('start runs the child, a second start is 409, stop ends it with SIGTERM', async () => {
    const { services, spawner } = setup([processService('worker')]);
    expect(services.views()[0]).toMatchObject({ state: 'stopped', last_exit: null });
    const started = await services.act('worker', 'start', 'operator');
    expect(started).toEqual({
      status: 200,
      body: {
        what: 'worker',
        action: 'start',
        ok: true,
        exit_code: null,
        output: 'started (pid 1000)',
      },
    });
    expect(services.views()[0]?.state).toBe('running');
    expect(await services.act('worker', 'start', 'operator')).toEqual({
      status: 409,
      body: { detail: "'worker' is already running" },
    });
    spawner.children[0]?.output('serving\n');
    const stopped = await services.act('worker', 'stop', 'operator');
    expect(stopped.body).toMatchObject({
      ok: true,
      exit_code: null,
      output: 'serving\n[stopped: killed by SIGTERM]',
    });
    expect(spawner.children[0]?.signals).toEqual(['SIGTERM']);
    expect(services.views()[0]).toMatchObject({
      state: 'stopped',
      last_exit: { code: null, signal: 'SIGTERM' },
    });
  });

  it('SIGKILL after the grace period when SIGTERM is ignored', async () => {
    const { services, spawner, clock } = setup([processService('w', { stopGraceMs: 5000 })]);
    spawner.behave = (child) => {
      child.start();
      child.onKill = (signal) => {
        if (signal === 'SIGKILL') child.exit(null, 'SIGKILL');
      };
    };
    await services.act('w', 'start', 'operator');
    const stopping = services.act('w', 'stop', 'operator');
    await clock.advance(4999);
    expect(services.views()[0]).toMatchObject({ state: 'running', busy: true });
    await clock.advance(1);
    expect((await stopping).body).toMatchObject({
      ok: true,
      output: '[did not stop within 5 s of SIGTERM; killed by SIGKILL]',
    });
    expect(spawner.children[0]?.signals).toEqual(['SIGTERM', 'SIGKILL']);
  });

  it('stop when not running is a harmless no-op', async () => {
    const { services } = setup([processService('w')]);
    expect((await services.act('w', 'stop', 'operator')).body).toEqual({
      what: 'w',
      action: 'stop',
      ok: true,
      exit_code: null,
      output: 'not running',
    });
  });

  it('a child that exits on its own is reported with its exit code and not restarted', async () => {
    const { services, spawner, clock } = setup([processService('w')]);
    await services.act('w', 'start', 'operator');
    spawner.children[0]?.exit(7);
    await flush();
    expect(services.views()[0]).toMatchObject({
      state: 'stopped',
      last_exit: { code: 7, signal: null, at: new Date(clock.now()).toISOString() },
    });
    await clock.advance(600_000);
    expect(spawner.children).toHaveLength(1);
    expect((await services.act('w', 'stop', 'operator')).body).toMatchObject({
      output: 'not running (last run ended: exit code 7)',
    });
  });

  it('a run argv that cannot start is ok false', async () => {
    const { services } = setup([processService('w', { run: ['missing'] })]);
    expect((await services.act('w', 'start', 'operator')).body).toMatchObject({ ok: false });
    expect(services.views()[0]?.state).toBe('stopped');
  });

  it('stopAll stops every running process service', async () => {
    const { services, spawner } = setup([processService('a'), processService('b')]);
    await services.act('a', 'start', 'operator');
    await services.act('b', 'start', 'operator');
    await services.stopAll();
    expect(spawner.children.map((c) => c.ended)).toEqual([true, true]);
    expect(services.views().map((v) => v.state)).toEqual(['stopped', 'stopped']);
  });
});
