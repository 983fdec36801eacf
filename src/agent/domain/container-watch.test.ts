import { describe, expect, it } from 'vitest';
import { CONTAINERS_MAX } from '../../shared/wire/machine-now.js';
import type { ContainerService } from '../service-config.js';
import { ContainerControl, containerTimeoutMs } from './container-service.js';
import {
  type ContainerEngine,
  ContainerWatch,
  ENGINE_CONCURRENCY,
  type EngineCall,
  REINSPECT_AFTER,
} from './container-watch.js';
import { ManualClock } from './manual-clock.js';

interface Fake {
  id: string;
  name: string;
  state: string;
  health?: string;
  cpuNs?: number;
  restarts?: number;
  /** The list's status text. */
  status?: string;
  startedAt?: string;
}

const id = (n: number) => n.toString(16).padStart(64, '0');

/** An engine answering from a list the test changes; it counts calls and calls in flight. */
function fakeEngine(containers: Fake[]) {
  const calls: string[] = [];
  let inFlight = 0;
  let most = 0;
  const answers: Record<string, EngineCall<'done' | 'already'>> = {};
  let listAnswer: EngineCall<unknown> | null = null;
  const track = async <T>(what: string, value: () => EngineCall<T>): Promise<EngineCall<T>> => {
    calls.push(what);
    inFlight += 1;
    most = Math.max(most, inFlight);
    await new Promise((r) => setImmediate(r));
    inFlight -= 1;
    return value();
  };
  const find = (key: string) => containers.find((c) => c.id === key || c.name === key);
  const missing = { ok: false as const, kind: 'refused' as const, status: 404, reason: 'HTTP 404' };
  const engine: ContainerEngine = {
    list: () =>
      track(
        'list',
        () =>
          listAnswer ?? {
            ok: true,
            value: containers.map((c) => ({
              Id: c.id,
              Names: [`/${c.name}`],
              Image: 'img',
              State: c.state,
              Status: c.status ?? '',
            })),
          },
      ),
    inspect: (key) =>
      track(`inspect ${key}`, () => {
        const c = find(key);
        if (c === undefined) return missing;
        return {
          ok: true,
          value: {
            State: {
              Status: c.state,
              StartedAt: c.startedAt ?? '2025-01-01T00:00:00Z',
              Health: { Status: c.health ?? '' },
            },
            RestartCount: c.restarts ?? 0,
          },
        };
      }),
    stats: (key) =>
      track(`stats ${key}`, () => {
        const c = find(key);
        if (c === undefined) return missing;
        return {
          ok: true,
          value: {
            cpu_stats: { cpu_usage: { total_usage: c.cpuNs ?? 0 } },
            memory_stats: { usage: 4096, limit: 8192 },
          },
        };
      }),
    start: (key) =>
      track(`start ${key}`, () => answers[`start ${key}`] ?? { ok: true, value: 'done' }),
    stop: (key, graceS, timeoutMs) =>
      track(
        `stop ${key} ${graceS} ${timeoutMs}`,
        () => answers[`stop ${key}`] ?? { ok: true, value: 'done' },
      ),
    cancel: () => undefined,
  };
  return {
    engine,
    calls,
    answers,
    get most() {
      return most;
    },
    failList(answer: EngineCall<unknown> | null) {
      listAnswer = answer;
    },
  };
}

describe('ContainerWatch', () => {
  it('lists every state, inspects each, samples running ones; CPU after the second read', async () => {
    const clock = new ManualClock();
    const containers: Fake[] = [
      { id: id(1), name: 'web', state: 'running', health: 'healthy', cpuNs: 1e9, restarts: 2 },
      { id: id(2), name: 'job', state: 'exited' },
      { id: id(3), name: 'new', state: 'created' },
      { id: id(4), name: 'held', state: 'paused' },
    ];
    const fake = fakeEngine(containers);
    const watch = new ContainerWatch(fake.engine, clock, () => 2);
    const first = await watch.read(5000);
    if (first.kind !== 'ok') throw new Error(JSON.stringify(first));
    expect(first.value.map((c) => [c.name, c.state, c.health, c.cpu, c.mem_used])).toEqual([
      ['held', 'paused', null, null, 4096],
      ['job', 'exited', null, null, null],
      ['new', 'created', null, null, null],
      ['web', 'running', 'healthy', null, 4096],
    ]);
    expect(first.value.find((c) => c.name === 'web')).toMatchObject({
      id: id(1).slice(0, 12),
      restarts: 2,
      mem_limit: 8192,
      started_at: '2025-01-01T00:00:00.000Z',
    });
    expect(fake.calls.filter((c) => c.startsWith('stats'))).toEqual([
      `stats ${id(1)}`,
      `stats ${id(4)}`,
    ]);
    expect(first).not.toHaveProperty('also');
    // One CPU busy for 2 s of a two-CPU machine: half of it.
    (containers[0] as Fake).cpuNs = 3e9;
    await clock.advance(2000);
    const second = await watch.read(5000);
    expect(second.kind === 'ok' && second.value.find((c) => c.name === 'web')?.cpu).toBeCloseTo(
      0.5,
    );
    expect(
      ['web', 'job', 'new', 'held', 'gone', id(1).slice(0, 12)].map((n) => watch.serviceState(n)),
    ).toEqual(['running', 'stopped', 'stopped', 'stopped', 'unknown', 'running']);
  });

  it('is absent without a socket, failed when the engine fails; states are then unknown', async () => {
    const fake = fakeEngine([{ id: id(1), name: 'web', state: 'running' }]);
    const watch = new ContainerWatch(fake.engine, new ManualClock(), () => 1);
    await watch.read(1000);
    expect(watch.serviceState('web')).toBe('running');
    fake.failList({ ok: false, kind: 'absent', reason: 'no socket' });
    expect(await watch.read(1000)).toEqual({ kind: 'absent' });
    expect(watch.serviceState('web')).toBe('unknown');
    fake.failList({
      ok: false,
      kind: 'timeout',
      reason: 'the container engine did not answer within 1000 ms',
    });
    expect(await watch.read(1000)).toEqual({
      kind: 'failed',
      reason: 'the container engine did not answer within 1000 ms',
    });
    fake.failList({ ok: true, value: { message: 'not a list' } });
    expect(await watch.read(1000)).toEqual({
      kind: 'failed',
      reason: 'the container list is not a JSON array',
    });
  });

  it('leaves out a container removed between the list and its inspect', async () => {
    const fake = fakeEngine([
      { id: id(1), name: 'a', state: 'running' },
      { id: id(2), name: 'b', state: 'running' },
    ]);
    const inspect = fake.engine.inspect;
    fake.engine.inspect = (key, t) =>
      key === id(2)
        ? Promise.resolve({ ok: false, kind: 'refused', status: 404, reason: '404' })
        : inspect(key, t);
    const watch = new ContainerWatch(fake.engine, new ManualClock(), () => 1);
    const read = await watch.read(1000);
    expect(read.kind === 'ok' && read.value.map((c) => c.name)).toEqual(['a']);
  });

  it('a read cut short lists every container, the rest from their last inspect, and goes on there next time', async () => {
    const clock = new ManualClock();
    const containers: Fake[] = Array.from({ length: 10 }, (_, i) => ({
      id: id(i + 1),
      name: `c${i}`,
      state: 'running',
      ...(i === 9 ? { health: 'unhealthy', restarts: 2 } : {}),
    }));
    const fake = fakeEngine(containers);
    const watch = new ContainerWatch(fake.engine, clock, () => 1);
    await watch.read(1000);
    // Now the engine is slow: the time-out passes during the first 8 calls, and c9 stopped.
    (containers[9] as Fake).state = 'exited';
    const { inspect, stats } = fake.engine;
    let asked: string[] = [];
    fake.engine.inspect = async (key, t) => {
      asked.push(key);
      await clock.advance(1000);
      return inspect(key, t);
    };
    fake.engine.stats = async (key, t) => {
      asked.push(key);
      await clock.advance(1000);
      return stats(key, t);
    };
    const cut = await watch.read(1000);
    if (cut.kind !== 'ok') throw new Error(JSON.stringify(cut));
    expect(asked).toHaveLength(ENGINE_CONCURRENCY);
    expect(cut.value).toHaveLength(10);
    const c9 = cut.value.find((c) => c.name === 'c9');
    expect(c9).toMatchObject({ state: 'exited', health: 'unhealthy', restarts: 2, mem_used: null });
    // The next read begins with the two it did not reach.
    asked = [];
    fake.engine.inspect = (key, t) => {
      asked.push(key);
      return inspect(key, t);
    };
    fake.engine.stats = (key, t) => {
      asked.push(key);
      return stats(key, t);
    };
    await watch.read(1000);
    expect(asked.slice(0, 2)).toEqual([id(9), id(10)]);
  });

  it(`inspects again only when the list shows a change, a health check, a restart, or every ${REINSPECT_AFTER} reads`, async () => {
    const clock = new ManualClock(Date.parse('2025-01-01T00:10:00Z'));
    const containers: Fake[] = [
      { id: id(1), name: 'idle', state: 'running', status: 'Up 10 minutes' },
      { id: id(2), name: 'checked', state: 'running', health: 'healthy', status: 'Up 10 minutes' },
      { id: id(3), name: 'done', state: 'exited', status: 'Exited (0) 10 minutes ago' },
    ];
    const fake = fakeEngine(containers);
    const watch = new ContainerWatch(fake.engine, clock, () => 1);
    const inspects = async () => {
      fake.calls.length = 0;
      const read = await watch.read(1000);
      if (read.kind !== 'ok') throw new Error(JSON.stringify(read));
      return { inspected: fake.calls.filter((c) => c.startsWith('inspect')), read: read.value };
    };
    expect((await inspects()).inspected).toHaveLength(3);
    // Unchanged: only the one whose health the status text does not carry (Podman's).
    expect((await inspects()).inspected).toEqual([`inspect ${id(2)}`]);
    // A new duration word is no change; a new exit code is.
    (containers[0] as Fake).status = 'Up 11 minutes';
    (containers[2] as Fake).status = 'Exited (1) 2 seconds ago';
    expect((await inspects()).inspected).toEqual([`inspect ${id(2)}`, `inspect ${id(3)}`]);
    // Restarted between two reads: "Up 2 seconds" of a container started ten minutes ago.
    (containers[0] as Fake).status = 'Up 2 seconds';
    Object.assign(containers[0] as Fake, { restarts: 1 });
    const after = await inspects();
    expect(after.inspected).toContain(`inspect ${id(1)}`);
    expect(after.read.find((c) => c.name === 'idle')?.restarts).toBe(1);
    // Docker's status text carries the health: then it is compared like the rest.
    (containers[1] as Fake).status = 'Up 11 minutes (healthy)';
    (containers[0] as Fake).startedAt = '2025-01-01T00:10:00Z';
    await inspects();
    expect((await inspects()).inspected).toEqual([]);
    let reads = 1;
    do reads += 1;
    while (!(await inspects()).inspected.includes(`inspect ${id(1)}`));
    expect(reads).toBe(REINSPECT_AFTER);
  });

  it('fails when the engine answers the list but nothing else in time', async () => {
    const fake = fakeEngine([{ id: id(1), name: 'a', state: 'running' }]);
    fake.engine.inspect = () =>
      Promise.resolve({ ok: false, kind: 'timeout', reason: 'no answer within 1000 ms' });
    const watch = new ContainerWatch(fake.engine, new ManualClock(), () => 1);
    expect(await watch.read(1000)).toEqual({
      kind: 'failed',
      reason: 'the container engine did not answer within 1000 ms',
    });
    expect(watch.serviceState('a')).toBe('unknown');
  });

  it(`lists at most ${CONTAINERS_MAX}, published first, says how many it left out, asks ${ENGINE_CONCURRENCY} at a time`, async () => {
    const containers: Fake[] = Array.from({ length: 520 }, (_, i) => ({
      id: id(i + 1),
      name: `c${String(i).padStart(3, '0')}`,
      state: i === 7 ? 'exited' : 'running',
    }));
    const fake = fakeEngine(containers);
    const watch = new ContainerWatch(fake.engine, new ManualClock(), () => 1);
    watch.publish(['c519']);
    const read = await watch.read(5000);
    if (read.kind !== 'ok') throw new Error('failed');
    expect(read.value).toHaveLength(CONTAINERS_MAX);
    expect(read.also).toEqual({ containers_omitted: 20 });
    const listed = new Set(read.value.map((c) => c.name));
    expect(listed.has('c519')).toBe(true);
    expect(listed.has('c007')).toBe(true);
    expect(fake.most).toBe(ENGINE_CONCURRENCY);
    // Every container's state is known, listed or not.
    expect(watch.serviceState('c518')).toBe('running');
  });
});

describe('ContainerControl', () => {
  const web: ContainerService = {
    kind: 'container',
    name: 'site',
    container: 'web',
    board: [],
    stopGraceMs: 8000,
  };

  it('starts and stops through the engine with stop_grace; 304 is success; state follows at once', async () => {
    const containers: Fake[] = [{ id: id(1), name: 'web', state: 'exited' }];
    const fake = fakeEngine(containers);
    const watch = new ContainerWatch(fake.engine, new ManualClock(), () => 1);
    const control = new ContainerControl(fake.engine, watch);
    await watch.read(1000);
    expect(control.serviceState('web')).toBe('stopped');
    (containers[0] as Fake).state = 'running';
    expect(await control.act(web, 'start')).toEqual({
      ok: true,
      exit_code: null,
      output: 'container web started',
    });
    expect(control.serviceState('web')).toBe('running');
    fake.answers['start web'] = { ok: true, value: 'already' };
    expect((await control.act(web, 'start')).output).toBe('container web was already running');
    fake.answers['stop web'] = { ok: true, value: 'already' };
    expect(await control.act(web, 'stop')).toEqual({
      ok: true,
      exit_code: null,
      output: 'container web was not running',
    });
    expect(fake.calls).toContain(`stop web 8 ${containerTimeoutMs(web) - 2000}`);
    expect(containerTimeoutMs(web)).toBe(18_000);
  });

  it('says so when the container is missing or the engine cannot be reached', async () => {
    const fake = fakeEngine([]);
    const control = new ContainerControl(
      fake.engine,
      new ContainerWatch(fake.engine, new ManualClock(), () => 1),
    );
    fake.answers['start web'] = { ok: false, kind: 'refused', status: 404, reason: 'HTTP 404' };
    expect(await control.act(web, 'start')).toEqual({
      ok: false,
      exit_code: null,
      output: 'no container web on the engine',
    });
    fake.answers['stop web'] = {
      ok: false,
      kind: 'unreachable',
      reason: 'the socket refused the connection',
    };
    expect((await control.act(web, 'stop')).output).toBe(
      'container web: the socket refused the connection',
    );
  });
});
