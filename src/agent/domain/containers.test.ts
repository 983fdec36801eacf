import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../../harness/root.js';
import {
  CpuSamples,
  containerState,
  containerView,
  EngineAnswerError,
  engineTime,
  keepMost,
  keepRank,
  memoryUsed,
  names,
  parseInspect,
  parseList,
  parseStats,
} from './containers.js';

/** A recorded answer of Podman 4.3.1 (test/fixtures/containers/README.md). */
function podman(file: string): unknown {
  const path = join(ROOT, 'test/fixtures/containers/podman-4.3.1', file);
  return JSON.parse(readFileSync(path, 'utf8'));
}

describe('what Podman answered', () => {
  it('lists every container with its name (no leading slash), image and state', () => {
    expect(parseList(podman('list.json'))).toEqual(
      [
        { name: 'busy', state: 'running' },
        { name: 'failed', state: 'exited' },
        { name: 'held', state: 'paused' },
        { name: 'made', state: 'created' },
        { name: 'web', state: 'running' },
      ].map((c) =>
        expect.objectContaining({ ...c, image: 'localhost/panoptes-test:1', unhealthyHint: false }),
      ),
    );
    expect(parseList(podman('list.json'))[0]?.id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads health, start time and restarts from inspect; a zero time is null', () => {
    expect(parseInspect(podman('inspect-web.json'))).toEqual({
      state: 'running',
      health: 'healthy',
      startedAt: '2026-11-28T10:01:37.952Z',
      finishedMs: null,
      restarts: 0,
    });
    // Podman's "no health check" is an empty status; never started is Go's zero time.
    expect(parseInspect(podman('inspect-made.json'))).toEqual({
      state: 'created',
      health: null,
      startedAt: null,
      finishedMs: null,
      restarts: 0,
    });
    expect(parseInspect(podman('inspect-failed.json'))).toMatchObject({
      state: 'exited',
      finishedMs: Date.parse('2026-11-28T10:01:38.663Z'),
    });
  });

  it('reads the CPU counter, the sample time and memory from one-shot stats', () => {
    expect(parseStats(podman('stats-busy.json'))).toEqual({
      cpuTotalNs: 1214555540,
      readAt: Date.parse('2026-11-28T10:01:40.818Z'),
      memUsed: 339968,
      memLimit: 25276514304,
    });
  });
});

describe('what Docker answers (the Engine API reference)', () => {
  it('takes the page cache off memory as `docker stats` does: cgroup v1, v2, older engines', () => {
    expect(
      memoryUsed({ usage: 1000, stats: { total_inactive_file: 300, inactive_file: 100 } }),
    ).toBe(700);
    expect(memoryUsed({ usage: 1000, stats: { inactive_file: 100 } })).toBe(900);
    expect(memoryUsed({ usage: 1000, stats: { cache: 250 } })).toBe(750);
    expect(memoryUsed({ usage: 1000, stats: { inactive_file: 5000 } })).toBe(1000);
    expect(memoryUsed({ usage: 1000 })).toBe(1000);
    expect(memoryUsed({})).toBeNull();
  });

  it('has no limit when the engine says 0 or a number past 2^53, and no sample time when zero', () => {
    const stats = parseStats({
      read: '0001-01-01T00:00:00Z',
      cpu_stats: { cpu_usage: { total_usage: 5 } },
      memory_stats: { usage: 10, limit: 0 },
    });
    expect(stats).toEqual({ cpuTotalNs: 5, readAt: null, memUsed: 10, memLimit: null });
    expect(parseStats({ memory_stats: { usage: 10, limit: 2 ** 64 } })?.memLimit).toBeNull();
    // A stopped container's stats: nothing to read.
    expect(parseStats({})).toEqual({
      cpuTotalNs: null,
      readAt: null,
      memUsed: null,
      memLimit: null,
    });
  });

  it('reads a health hint from the list and no health from an inspect without Health', () => {
    const [c] = parseList([
      {
        Id: 'A'.repeat(64),
        Names: ['/api'],
        Image: 'nginx',
        State: 'running',
        Status: 'Up 2 hours (unhealthy)',
      },
    ]);
    expect(c).toMatchObject({ id: 'a'.repeat(64), name: 'api', unhealthyHint: true });
    expect(
      parseInspect({
        State: { Status: 'running', StartedAt: '2025-03-01T10:00:00.123456789Z' },
        RestartCount: 4,
      }),
    ).toEqual({
      state: 'running',
      health: null,
      startedAt: '2025-03-01T10:00:00.123Z',
      finishedMs: null,
      restarts: 4,
    });
  });
});

describe('an engine answer is data', () => {
  it('maps the engine words to the six states, and an unknown one to dead', () => {
    expect(
      ['running', 'Exited', 'paused', 'restarting', 'created', 'dead'].map(containerState),
    ).toEqual(['running', 'exited', 'paused', 'restarting', 'created', 'dead']);
    expect(
      ['configured', 'initialized', 'stopped', 'removing', 'stopping'].map(containerState),
    ).toEqual(['created', 'created', 'exited', 'exited', 'running']);
    expect([7, null, 'exploded'].map(containerState)).toEqual(['dead', 'dead', 'dead']);
  });

  it('leaves out entries without an id, cleans names and images, cuts them to size', () => {
    const listed = parseList([
      { Names: ['/no-id'] },
      { Id: 'not-hex', Names: ['/x'] },
      {
        Id: 'b'.repeat(64),
        Names: ['/evil\u001b[31mred\u202e'],
        Image: 'i'.repeat(3000),
        State: 'running',
      },
      { Id: 'c'.repeat(64), Names: [], State: 'exited' },
      'junk',
    ]);
    expect(listed.map((c) => c.name)).toEqual(['evil\ufffd[31mred\ufffd', 'cccccccccccc']);
    expect(listed[0]?.image).toHaveLength(1024);
    expect(() => parseList({ message: 'page not found' })).toThrow(EngineAnswerError);
    expect(parseInspect('nope')).toBeNull();
    expect(parseInspect({ RestartCount: -3, State: { Health: { Status: 'sick' } } })).toEqual({
      state: null,
      health: null,
      startedAt: null,
      finishedMs: null,
      restarts: 0,
    });
  });

  it('reads times after 1970 only', () => {
    expect(engineTime('2025-01-01T00:00:00Z')).toBe('2025-01-01T00:00:00.000Z');
    expect(engineTime('0001-01-01T00:00:00Z')).toBeNull();
    expect(engineTime('yesterday')).toBeNull();
    expect(engineTime(12)).toBeNull();
  });
});

describe('CpuSamples', () => {
  it('gives a share of all CPUs from two samples, null for the first and across a restart', () => {
    const cpu = new CpuSamples();
    expect(cpu.share('a', 1e9, 0, 4)).toBeNull();
    // 2 s of CPU in 1 s on 4 CPUs: half of the machine.
    expect(cpu.share('a', 3e9, 1000, 4)).toBeCloseTo(0.5);
    expect(cpu.share('a', 1e6, 2000, 4)).toBeNull();
    expect(cpu.share('a', 1e6 + 4e10, 3000, 4)).toBe(1);
    expect(cpu.share('a', null, 4000, 4)).toBeNull();
    expect(cpu.share('a', 5, 5000, 4)).toBeNull();
    cpu.share('b', 0, 0, 1);
    cpu.keepOnly(new Set(['a']));
    expect(cpu.share('b', 1e9, 1000, 1)).toBeNull();
  });
});

describe('which containers are kept when not all fit', () => {
  const list = [
    { id: 'a'.repeat(64), name: 'run1', state: 'running' as const, unhealthy: false },
    { id: 'b'.repeat(64), name: 'sick', state: 'running' as const, unhealthy: true },
    { id: 'c'.repeat(64), name: 'gone', state: 'exited' as const, unhealthy: false },
    { id: 'd'.repeat(64), name: 'web', state: 'running' as const, unhealthy: false },
  ];

  it('keeps published ones, then stopped or unhealthy, then running, in their order', () => {
    const rank = (c: (typeof list)[number]) => keepRank(c, ['web']);
    expect(keepMost(list, rank, 1).map((c) => c.name)).toEqual(['web']);
    expect(keepMost(list, rank, 3).map((c) => c.name)).toEqual(['sick', 'gone', 'web']);
    expect(keepMost(list, rank, 9)).toHaveLength(4);
  });

  it('knows a container by its name or by 12 or more hex digits of its id', () => {
    const c = { id: 'dd34'.repeat(16), name: 'web' };
    expect(names(c, 'web')).toBe(true);
    expect(names(c, 'dd34dd34dd34')).toBe(true);
    expect(names(c, 'dd34')).toBe(false);
    expect(names(c, 'we')).toBe(false);
  });

  it('shows the short id and, without inspect or stats, nulls', () => {
    const [listed] = parseList([
      { Id: 'e'.repeat(64), Names: ['/x'], Image: 'i', State: 'exited' },
    ]);
    if (listed === undefined) throw new Error('no container');
    expect(containerView(listed, null, null, null)).toEqual({
      name: 'x',
      id: 'eeeeeeeeeeee',
      image: 'i',
      state: 'exited',
      health: null,
      started_at: null,
      cpu: null,
      mem_used: null,
      mem_limit: null,
      restarts: 0,
    });
  });
});
