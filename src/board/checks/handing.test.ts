import { describe, expect, it } from 'vitest';
import type { ConfigProblem } from '../../shared/config/config-error.js';
import { toLabels } from '../../shared/labels.js';
import { type CheckConfig, readChecks } from './check-config.js';
import { CheckHanding, canonicalJson, checksVersion, NO_CHECKS_VERSION } from './handing.js';

function read(raw: CheckConfig[]) {
  const problems: ConfigProblem[] = [];
  const checks = readChecks(raw, problems);
  expect(problems).toEqual([]);
  return checks;
}

const WEB: CheckConfig = {
  name: 'web',
  type: 'http',
  target: 'http://127.0.0.1:8080/',
  headers: { 'x-b': '2', 'x-a': '1' },
  runners: { selector: 'site in (a,b)' },
};
const DB: CheckConfig = {
  name: 'db',
  type: 'tcp',
  target: '127.0.0.1:5432',
  runners: { selector: 'site=b' },
};
const ONE: CheckConfig = {
  name: 'one',
  type: 'tcp',
  target: '127.0.0.1:22',
  runners: { selector: 'name=m1' },
};

describe('what the board hands each runner', () => {
  it('hands each machine the checks whose selector matches its board labels, its name a label', () => {
    const handing = new CheckHanding(() => read([WEB, DB, ONE]).slice());
    const checks = read([WEB, DB, ONE]);
    const fixed = new CheckHanding(() => checks);
    expect(fixed.forMachine('m1', toLabels({ site: 'a' })).checks.map((c) => c.name)).toEqual([
      'one',
      'web',
    ]);
    expect(fixed.forMachine('m2', toLabels({ site: 'b' })).checks.map((c) => c.name)).toEqual([
      'db',
      'web',
    ]);
    expect(fixed.forMachine('m3', toLabels({ site: 'c' }))).toEqual({
      version: NO_CHECKS_VERSION,
      checks: [],
    });
    expect(handing.forMachine('m2', toLabels({ site: 'b' })).version).toMatch(/^[0-9a-f]{20}$/);
  });

  it('gives the same version for the same config written in another order (every board alike)', () => {
    const reordered: CheckConfig = { ...WEB, headers: { 'x-a': '1', 'x-b': '2' } };
    const a = new CheckHanding(() => read([WEB, DB])).forMachine('m', toLabels({ site: 'b' }));
    const b = new CheckHanding(() => read([DB, reordered])).forMachine(
      'm',
      toLabels({ site: 'b' }),
    );
    expect(a.version).toBe(b.version);
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
    const changed = new CheckHanding(() => read([DB, { ...WEB, target: 'http://127.0.0.1:9/' }]));
    expect(changed.forMachine('m', toLabels({ site: 'b' })).version).not.toBe(a.version);
    expect(checksVersion([])).toBe('');
  });

  it('answers a report from the memo while config and labels stay, and anew when either changes', () => {
    let checks = read([WEB, DB]);
    const handing = new CheckHanding(() => checks);
    const labels = toLabels({ site: 'a' });
    const first = handing.forMachine('m', labels);
    expect(handing.forMachine('m', labels)).toBe(first);
    const moved = handing.forMachine('m', toLabels({ site: 'b' }));
    expect(moved.checks.map((c) => c.name)).toEqual(['db', 'web']);
    checks = read([WEB]);
    expect(handing.forMachine('m', toLabels({ site: 'b' })).checks.map((c) => c.name)).toEqual([
      'web',
    ]);
  });

  it('hands checks in a report’s answer only when the reported version differs', () => {
    const checks = read([WEB]);
    const handing = new CheckHanding(() => checks);
    const labels = toLabels({ site: 'a' });
    const handed = handing.answer('m', labels, '');
    expect(handed?.checks.map((c) => c.name)).toEqual(['web']);
    expect(handing.answer('m', labels, handed?.version)).toBeUndefined();
    // An agent that does not say (an older one) is handed them while it has checks to run.
    expect(handing.answer('m', labels, undefined)).toBe(handed);
    const none = toLabels({ site: 'z' });
    expect(handing.answer('m', none, undefined)).toBeUndefined();
    expect(handing.answer('m', none, '')).toBeUndefined();
    // Its checks were all taken away: it is told so, with an empty list.
    expect(handing.answer('m', none, handed?.version)).toEqual({ version: '', checks: [] });
    expect(new CheckHanding(() => []).answer('m', labels, '')).toBeUndefined();
  });
});
