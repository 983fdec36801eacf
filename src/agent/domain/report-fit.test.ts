import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HandedResult } from '../../shared/wire/action.js';
import type { ContainerView } from '../../shared/wire/machine-now.js';
import type { Overview } from '../../shared/wire/overview.js';
import { fitReport, REPORT_MAX_BYTES, trimResult } from './report-fit.js';

function overview(sessions: Overview['sessions']): Overview {
  return {
    name: 'web1',
    hostname: 'web1',
    platform: 'linux',
    arch: 'x64',
    uptime_s: 1,
    load: [0, 0, 0],
    cpus: 1,
    cpu_use: 0,
    memory: { total: 1, free: 1, used: 0 },
    disks: [],
    services: [],
    sessions,
    version: '0.1.0',
    time: '2025-01-01T00:00:00.000Z',
  };
}

function result(id: string, output: string): HandedResult {
  return {
    id,
    status: 200,
    body: { what: 'x', action: 'start', ok: true, exit_code: 0, output },
  };
}

describe('fitReport', () => {
  it('is the overview plus name, location and the results', () => {
    const fitted = fitReport(overview([]), 'http://web1:8701', [result('a', 'done')]);
    expect(fitted.report).toMatchObject({
      name: 'web1',
      location: 'http://web1:8701',
      results: [result('a', 'done')],
    });
    expect(fitted.sentIds).toEqual(['a']);
    expect(JSON.parse(fitted.json)).toEqual(fitted.report);
  });

  it('leaves results out when there are none', () => {
    expect(fitReport(overview([]), 'http://x', []).report).not.toHaveProperty('results');
  });

  it('always fits, however many and however long the sessions and results', () => {
    const session = fc.record({
      session: fc.string({ minLength: 1, maxLength: 200 }),
      why: fc.constantFrom('finished' as const, 'attention' as const, 'error' as const),
      text: fc.string({ maxLength: 4000 }),
      at: fc.constant('2025-01-01T00:00:00.000Z'),
    });
    const pending = fc.array(fc.record({ id: fc.uuid(), output: fc.string({ maxLength: 4096 }) }), {
      maxLength: 150,
    });
    fc.assert(
      fc.property(fc.array(session, { maxLength: 200 }), pending, (sessions, results) => {
        const fitted = fitReport(
          overview(sessions),
          'http://web1:8701',
          results.map((r) => result(r.id, r.output)),
        );
        expect(Buffer.byteLength(fitted.json)).toBeLessThanOrEqual(REPORT_MAX_BYTES);
        expect(fitted.sentIds).toEqual(fitted.report.results?.map((r) => r.id) ?? []);
        if (results.length > 0) expect(fitted.sentIds[0]).toBe(results[0]?.id);
      }),
      { numRuns: 40 },
    );
  });

  it('keeps the most recent sessions when it must drop some', () => {
    const sessions = Array.from({ length: 120 }, (_, i) => ({
      session: `s${i}`,
      why: 'finished' as const,
      text: 'x'.repeat(2000),
      at: '2025-01-01T00:00:00.000Z',
    }));
    const fitted = fitReport(overview(sessions), 'http://x', []);
    expect(fitted.report.sessions?.[0]?.session).toBe('s0');
    expect(fitted.report.sessions?.length).toBeLessThan(120);
  });
});

describe('fitReport with containers', () => {
  const container = (i: number, state: 'running' | 'exited' = 'running'): ContainerView => ({
    name: `app-${String(i).padStart(3, '0')}-${'n'.repeat(40)}`,
    id: i.toString(16).padStart(12, '0'),
    image: `registry.example.com/team/app-${i}:1.2.3`,
    state,
    health: null,
    started_at: '2025-01-01T00:00:00.000Z',
    cpu: 0.01,
    mem_used: 123456789,
    mem_limit: 987654321,
    restarts: 0,
  });

  it('cuts 500 containers to fit, keeping published, stopped and unhealthy ones, and counts the rest', () => {
    const containers = Array.from({ length: 500 }, (_, i) =>
      container(i, i % 50 === 7 ? 'exited' : 'running'),
    );
    const sick = { ...container(300), health: 'unhealthy' as const };
    containers[300] = sick;
    const o: Overview = {
      ...overview([
        { session: 's', why: 'attention', text: 'look', at: '2025-01-01T00:00:00.000Z' },
      ]),
      services: [
        {
          name: 'site',
          kind: 'container',
          container: containers[499]?.name as string,
          state: 'running',
          actions: ['start', 'stop'],
          board: ['start', 'stop'],
          busy: false,
          timeout_s: 20,
        },
      ],
      containers,
      containers_omitted: 3,
    };
    expect(Buffer.byteLength(JSON.stringify(o))).toBeGreaterThan(2 * REPORT_MAX_BYTES);
    const fitted = fitReport(o, 'http://web1:8701', [result('a', 'done')]);
    expect(Buffer.byteLength(fitted.json)).toBeLessThanOrEqual(REPORT_MAX_BYTES);
    const sent = fitted.report.containers ?? [];
    expect(sent.length).toBeGreaterThan(100);
    expect(fitted.report.containers_omitted).toBe(3 + 500 - sent.length);
    const names = sent.map((c) => c.name);
    expect(names).toContain(containers[499]?.name);
    expect(names).toContain(sick.name);
    for (const stopped of containers.filter((c) => c.state === 'exited'))
      expect(names).toContain(stopped.name);
    // In the overview's order; what was cut is running ones only; nothing else was given up.
    expect(names).toEqual([...names].sort());
    expect(fitted.report.sessions).toHaveLength(1);
    expect(fitted.sentIds).toEqual(['a']);
  });

  it('sends every container with no count when they fit', () => {
    const o = { ...overview([]), containers: [container(1), container(2)] };
    const fitted = fitReport(o, 'http://x', []);
    expect(fitted.report.containers).toHaveLength(2);
    expect(fitted.report).not.toHaveProperty('containers_omitted');
  });
});

describe('trimResult', () => {
  it('keeps the end of a long output, leaves other bodies alone', () => {
    expect(trimResult(result('a', '0123456789'), 4).body).toMatchObject({ output: '6789' });
    const refused = { id: 'b', status: 403, body: { detail: 'no' } };
    expect(trimResult(refused, 1)).toBe(refused);
  });

  it('carries every check result that fits, the failing ones first, and the version always', () => {
    const checks = Array.from({ length: 1000 }, (_, i) => ({
      name: `check-${i}`,
      ok: i % 100 !== 7,
      ms: 12.5,
      detail: i % 100 === 7 ? 'connection refused' : '',
      at: '2025-01-01T00:00:00.000Z',
    }));
    const all = { ...overview([]), checks, checks_version: 'abc' };
    const { json } = fitReport(all, 'http://web1:8701', []);
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(REPORT_MAX_BYTES);
    const sent = JSON.parse(json) as {
      checks: { name: string; ok: boolean }[];
      checks_version: string;
    };
    expect(sent.checks_version).toBe('abc');
    expect(sent.checks.length).toBeGreaterThan(300);
    expect(sent.checks.length).toBeLessThan(1000);
    expect(sent.checks.slice(0, 10).every((c) => !c.ok)).toBe(true);
    // The good ones take turns: each report goes on where the last stopped, and all are sent.
    const seen = new Set<string>();
    let from = 0;
    for (let report = 0; report < 4; report += 1) {
      const turn = fitReport(all, 'http://web1:8701', [], undefined, null, null, from);
      const carried = (JSON.parse(turn.json) as { checks: { name: string }[] }).checks;
      for (const c of carried) seen.add(c.name);
      from += turn.goodSent ?? 0;
    }
    expect(seen.size).toBe(1000);
    // A few fit whole.
    const few = fitReport({ ...all, checks: checks.slice(0, 5) }, 'http://web1:8701', []);
    expect((JSON.parse(few.json) as { checks: unknown[] }).checks).toHaveLength(5);
  });

  it('carries the key proof when there is one, and none otherwise', () => {
    expect(
      fitReport(overview([]), 'http://x', [], undefined, { key_proof: 'abc123' }).report.key_proof,
    ).toBe('abc123');
    expect(fitReport(overview([]), 'http://x', []).report).not.toHaveProperty('key_proof');
  });
});
