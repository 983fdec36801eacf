import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The Node versions Panoptes supports: 20 from 20.19 on, and the current LTS, 26. */
const SUPPORTED = ['20.19.0', '26.0.0'];

const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } }>;
};
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};

type Version = [number, number, number];

function parse(version: string): Version {
  const [a = 0, b = 0, c = 0] = version.split('.').map(Number);
  return [a, b, c];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** One comparator of an npm range (`>=20.19`, `^20.19.0`, `>= 10.x`, `~1.2`, `20`). */
function comparator(v: Version, part: string): boolean {
  const m = /^(>=|<=|>|<|\^|~|=)?v?(\d+|x|\*)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(part);
  if (m === null) throw new Error(`a range part this test does not read: ${part}`);
  const given = [m[2], m[3], m[4]].map((p) =>
    p === undefined || p === 'x' || p === '*' ? null : Number(p),
  );
  const base: Version = [given[0] ?? 0, given[1] ?? 0, given[2] ?? 0];
  const order = compare(v, base);
  switch (m[1] ?? '=') {
    case '>=':
      return order >= 0;
    case '>':
      return order > 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '^':
      return order >= 0 && v[0] === base[0];
    case '~':
      return order >= 0 && v[0] === base[0] && (given[1] === null || v[1] === base[1]);
    default:
      return given.every((p, i) => p === null || p === v[i]);
  }
}

/** Whether `version` satisfies an npm `engines` range (the forms the lock file holds). */
function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/([<>=^~]+)\s+/g, '$1')
      .split(/\s+/)
      .filter((p) => p !== '')
      .every((p) => comparator(v, p)),
  );
}

/** `npm install` on a supported Node warns of no engine (EBADENGINE). */
describe('Node versions', () => {
  it('reads npm ranges as npm does', () => {
    expect(satisfies('20.19.0', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('20.18.9', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies('26.0.0', '>= 10.x')).toBe(true);
    expect(satisfies('20.19.0', '>=22')).toBe(false);
  });

  it('package.json engines admits every supported version', () => {
    for (const version of SUPPORTED) expect(satisfies(version, pkg.engines.node)).toBe(true);
  });

  it('every package of package-lock.json runs on every supported version', () => {
    const refused = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = entry.engines?.node;
      if (range === undefined || path === '') return [];
      return SUPPORTED.filter((v) => !satisfies(v, range)).map(
        (v) => `${path.replace(/^.*node_modules\//, '')} (node ${range}) refuses ${v}`,
      );
    });
    expect(refused).toEqual([]);
  });
});
