import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { machineMemory } from '../view/machine-memory.js';
import type { ChangeSet } from './change-set.js';
import { EventHub } from './events.js';
import type { Machine, MachineAlerts } from './machine.js';
import { UNLISTED_KEEP_MS } from './machine-watch.js';
import { Registry } from './registry.js';

const c = (name: string, state = 'running', health: string | null = null) => ({
  name,
  id: 'a'.repeat(12),
  image: 'busybox',
  state,
  health,
  started_at: null,
  cpu: 0.01,
  mem_used: 1024,
  mem_limit: null,
  restarts: 0,
});

/** A registry and one announced machine, observed through the one path polls and reports take. */
function fleet() {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const registry = new Registry(clock, new EventHub(), [], 10, machineMemory(clock));
  const found = registry.announce('web1', 'http://web1:8701');
  if ('refused' in found) throw new Error('refused');
  const machine = found.machine;
  const report = (overview: Record<string, unknown>, alerts?: MachineAlerts) =>
    registry.observe(machine, { ok: true, overview, ...(alerts ? { alerts } : {}) });
  /** The container changes since the last call, as "container problem←previous" strings. */
  const changes = (): string[] => {
    const set: ChangeSet = registry.changes.close(
      clock.now(),
      null,
      () => registry.all(),
      1,
      (e) => {
        throw e;
      },
    );
    return [
      ...set.containers.map(
        (x) =>
          `${x.container} ${x.problem ?? (x.gone ? 'gone' : 'ok')}←${x.previous ?? '-'}${x.state === null ? ' unlisted' : ''}`,
      ),
      ...set.diskHealth.map((d) => `${d.device} ${d.failing ? 'failing' : 'passing'}`),
    ];
  };
  const alerts = (m: Machine = machine) => m.containerAlerts.map((a) => `${a.name}:${a.problem}`);
  return { clock, registry, machine, report, changes, alerts };
}

describe('container episodes, watched as overviews arrive', () => {
  it('a container that ran and stopped opens one; running again ends it', () => {
    const f = fleet();
    f.report({ containers: [c('web'), c('db')] });
    expect(f.changes()).toEqual([]);
    f.report({ containers: [c('web', 'exited'), c('db')] });
    expect(f.changes()).toEqual(['web stopped←-']);
    expect(f.alerts()).toEqual(['web:stopped']);
    f.report({ containers: [c('web', 'exited'), c('db')] });
    expect(f.changes()).toEqual([]);
    f.report({ containers: [c('web'), c('db')] });
    expect(f.changes()).toEqual(['web ok←stopped']);
    expect(f.machine.containerAlerts).toHaveLength(0);
  });

  it('turning unhealthy opens one; a container never seen running opens none', () => {
    const f = fleet();
    f.report({ containers: [c('api', 'running', 'starting'), c('job', 'exited')] });
    f.report({ containers: [c('api', 'running', 'unhealthy'), c('job', 'exited')] });
    expect(f.changes()).toEqual(['api unhealthy←-']);
    // Restarted and unhealthy from the start after that: the episode goes on as "stopped".
    f.report({ containers: [c('api', 'restarting', 'unhealthy'), c('job', 'exited')] });
    expect(f.changes()).toEqual(['api stopped←unhealthy']);
    f.report({ containers: [c('api', 'running', 'healthy'), c('job', 'dead')] });
    expect(f.changes()).toEqual(['api ok←stopped']);
    // First seen unhealthy: it never turned unhealthy under the board's eyes.
    const g = fleet();
    g.report({ containers: [c('api', 'running', 'unhealthy')] });
    g.report({ containers: [c('api', 'running', 'unhealthy')] });
    expect(g.changes()).toEqual([]);
  });

  it('a running container no longer listed has stopped; one left out of a partial list has not', () => {
    const f = fleet();
    f.report({ containers: [c('a'), c('b')] });
    f.report({ containers: [c('a')], containers_omitted: 1 });
    expect(f.changes()).toEqual([]);
    f.report({ containers: [c('a')] });
    expect(f.changes()).toEqual(['b stopped←- unlisted']);
    // Gone for good: its alert ends quietly a day later.
    f.clock.advance(UNLISTED_KEEP_MS);
    f.report({ containers: [c('a')] });
    expect(f.changes()).toEqual(['b gone←stopped unlisted']);
    expect(f.alerts()).toEqual([]);
  });

  it('a machine going down, or an engine that could not be read, fires nothing for its containers', () => {
    const f = fleet();
    f.report({ containers: [c('a'), c('b', 'running', 'healthy')] });
    f.registry.observe(f.machine, { ok: false, error: 'no report for 60 s' });
    expect(f.changes()).toEqual([]);
    // Back with its engine not read yet, then failing: nothing known, nothing fires.
    f.report({});
    f.report({ containers_error: 'connect ENOENT /var/run/docker.sock' });
    expect(f.changes()).toEqual([]);
    // Read again: compared with the list from before it went down.
    f.report({ containers: [c('a', 'exited'), c('b', 'running', 'healthy')] });
    expect(f.changes()).toEqual(['a stopped←-']);
  });

  it('keeps the same list for the same containers: no alert, no change, no new list', () => {
    const f = fleet();
    f.report({ containers: [c('a'), c('b')] });
    const kept = f.machine.metrics?.containers;
    f.report({ containers: [{ ...c('a'), cpu: 0.5 }, c('b')] });
    expect(f.machine.metrics?.containers).toBe(kept);
    expect(f.machine.metrics?.containers?.[0]?.cpu).toBe(0.5);
    expect(f.machine.containersSeen).toBe(kept);
    expect(f.changes()).toEqual([]);
  });

  it('shows the open ones in the record as container_alerts, and nothing when there are none', () => {
    const f = fleet();
    const record = () => JSON.parse(f.registry.memory.recordBytes(f.machine).toString('utf8'));
    f.report({ containers: [c('web'), c('db', 'running', 'healthy')] });
    expect('container_alerts' in record()).toBe(false);
    f.report({ containers: [c('web', 'exited'), c('db', 'running', 'unhealthy')] });
    expect(record().container_alerts).toEqual([
      { name: 'web', problem: 'stopped' },
      { name: 'db', problem: 'unhealthy' },
    ]);
    f.report({ containers: [c('web'), c('db', 'running', 'healthy')] });
    expect('container_alerts' in record()).toBe(false);
  });

  it("takes another board's alerts as they are, and tells what opened and ended", () => {
    const f = fleet();
    const since = f.clock.now() - 60_000;
    f.report(
      { containers: [c('web', 'exited'), c('db')] },
      { containers: [{ name: 'web', problem: 'stopped', since, goneAt: null }], disks: [] },
    );
    expect(f.changes()).toEqual(['web stopped←-']);
    expect(f.machine.containerAlerts[0]?.since).toBe(since);
    f.report({ containers: [c('web'), c('db')] }, { containers: [], disks: [] });
    expect(f.changes()).toEqual(['web ok←stopped']);
    f.report(
      { containers: [c('db')] },
      {
        containers: [],
        disks: [{ device: '/dev/sda', since }],
      },
    );
    expect(f.changes()).toEqual(['/dev/sda failing']);
  });
});

describe('disk health episodes', () => {
  const smart = (passed: boolean | null, device = '/dev/sda') => ({
    device,
    model: 'X',
    passed,
    temp_c: 30,
    power_on_hours: 1,
  });

  it('fails when passed turns false (or is first seen false), passes again when true', () => {
    const f = fleet();
    f.report({ smart: [smart(true), smart(false, '/dev/sdb')] });
    expect(f.changes()).toEqual(['/dev/sdb failing']);
    f.report({ smart: [smart(false), smart(false, '/dev/sdb')] });
    expect(f.changes()).toEqual(['/dev/sda failing']);
    // Not said, or smartctl not read: nothing changes.
    f.report({ smart: [smart(null), smart(false, '/dev/sdb')] });
    f.report({ smart_error: 'smartctl timed out' });
    expect(f.changes()).toEqual([]);
    f.report({ smart: [smart(true), smart(false, '/dev/sdb')] });
    expect(f.changes()).toEqual(['/dev/sda passing']);
    expect(f.machine.failingDisks.map((d) => d.device)).toEqual(['/dev/sdb']);
  });
});
