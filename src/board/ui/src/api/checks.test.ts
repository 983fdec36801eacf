import { describe, expect, it } from 'vitest';
import { checkOrder, meanMs, parseChecks } from './checks.js';

describe('the checks, as the page reads GET /api/checks', () => {
  const body = [
    {
      name: 'web',
      type: 'http',
      state: 'up',
      since: '2026-01-01T00:00:00Z',
      uptime_24h: 1,
      runners: [],
    },
    {
      name: 'api',
      type: 'http',
      state: 'down',
      since: '2026-01-02T00:00:00Z',
      uptime_24h: 0.5,
      runners: [
        { machine: 'a', ok: false, ms: 120, detail: '<b>x</b>', at: '2026-01-02T00:00:00Z' },
        { machine: '@board', ok: true, ms: 40, detail: '', at: '2026-01-02T00:00:00Z' },
        { machine: 7, ok: true },
      ],
    },
    { name: 'dns', type: 'dns', state: 'strange', since: null, uptime_24h: 3, runners: 'x' },
    { nameless: true },
  ];

  it('reads rows, leaves out what is not one, and takes an unknown state for unknown', () => {
    const rows = parseChecks(body);
    expect(rows.map((r) => [r.name, r.state, r.uptime24h, r.runners.length])).toEqual([
      ['web', 'up', 1, 0],
      ['api', 'down', 0.5, 2],
      ['dns', 'unknown', null, 0],
    ]);
    expect(rows[1]?.runners[0]?.detail).toBe('<b>x</b>');
    expect(rows[1]?.since).toBe(Date.parse('2026-01-02T00:00:00Z'));
    expect(parseChecks({ not: 'an array' })).toEqual([]);
  });

  it('puts down checks first, then unknown, then up, by name within each', () => {
    const rows = parseChecks([
      { name: 'b', state: 'up' },
      { name: 'a', state: 'up' },
      { name: 'z', state: 'down' },
      { name: 'm', state: 'unknown' },
    ]);
    expect(rows.sort(checkOrder).map((r) => r.name)).toEqual(['z', 'm', 'a', 'b']);
  });

  it("takes the mean of the runners' last response times", () => {
    const [api] = parseChecks([body[1]]);
    expect(meanMs(api?.runners ?? [])).toBe(80);
    expect(meanMs([])).toBeNull();
  });
});
