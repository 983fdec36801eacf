import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutMembers, noteJsonSource, takeJsonSource } from './json-members.js';

const DROP = ['name', 'location', 'results', 'key_proof', 'key_proof_at', 'interval_s'];

/** What Board.report did before: the parsed object without DROP, serialised again. */
function expected(text: string): string {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const { name, location, results, key_proof, key_proof_at, interval_s, ...overview } = parsed;
  return JSON.stringify(overview);
}

function cut(text: string): string | null {
  return cutMembers(Buffer.from(text, 'utf8'), DROP)?.toString('utf8') ?? null;
}

/** JSON values mostly as agents write them, with the odd key and number in. */
const key = fc.oneof(
  fc.constantFrom(...DROP, 'cpu_use', 'load', '__proto__', '0', '12', 'a"b', 'a\\b', 'x\ny', ''),
  fc.string({ maxLength: 8 }),
);
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 0.5, 1e-7, 1e-6, 1e21, 123456789012345, 1234567890123456, 0.1 + 0.2),
);
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.string({ maxLength: 12 }), number, fc.boolean(), fc.constant(null)),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(key, tie('node'), { maxKeys: 5 }),
  ),
})).node;
const report = fc.dictionary(key, value, { maxKeys: 10 });

describe('cutMembers', () => {
  it('is JSON.stringify of the object without the members, or null (random objects)', () => {
    let cuts = 0;
    fc.assert(
      fc.property(report, (r) => {
        const text = JSON.stringify(r);
        const got = cut(text);
        if (got !== null) {
          cuts += 1;
          expect(got).toBe(expected(text));
        }
      }),
      { numRuns: 3000 },
    );
    // The property says something: many of them were cut, not left to stringify.
    expect(cuts).toBeGreaterThan(300);
  });

  it('is right for deep and wide texts, and for small texts after them', () => {
    // 60 open containers deep, and ~240 keys open at once (objects of 200 keys inside one of
    // 40), with dropped members between kept ones; then small texts again (working arrays kept
    // between calls would have grown on such texts).
    let deep: unknown = { last: true };
    for (let i = 0; i < 60; i++) deep = i % 2 === 0 ? [deep, i] : { [`k${i}`]: deep, n: i };
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) {
      const inner: Record<string, number> = {};
      for (let k = 0; k < 200; k++) inner[`key${k}`] = k;
      wide[i % 3 === 0 ? (DROP[i % DROP.length] ?? 'name') : `member${i}`] = inner;
    }
    const texts = [
      JSON.stringify({ name: 'a', deep, cpu_use: 0.5 }),
      JSON.stringify({ nest: { a: { b: { c: wide } } }, name: 'b' }),
      JSON.stringify(wide),
      JSON.stringify({ name: 'c', cpu_use: 0.25, load: [1, 2, 3] }),
      '{"a":1,"a":2}',
      JSON.stringify({ location: 'x', load: [0.5] }),
    ];
    for (const text of [...texts, ...texts]) {
      const got = cut(text);
      if (text === '{"a":1,"a":2}') expect(got).toBeNull();
      else expect(got).toBe(expected(text));
    }
  });

  it('is null or right for text not written by JSON.stringify', () => {
    const variants = fc.tuple(report, fc.constantFrom(' ', '\n', '1.0', '1e3', '-0', '\\/', 'dup'));
    fc.assert(
      fc.property(variants, ([r, twist]) => {
        let text = JSON.stringify({ ...r, n: 5, s: 'a/b' });
        if (twist === ' ' || twist === '\n') text = text.replace(':', `:${twist}`);
        else if (twist === '\\/') text = text.replace('a/b', 'a\\/b');
        else if (twist === 'dup') text = text.replace('{', '{"n":4,');
        else text = text.replace('"n":5', `"n":${twist}`);
        try {
          JSON.parse(text); // a twist inside a string may make it no JSON (it takes parsed text)
        } catch {
          return;
        }
        const got = cut(text);
        if (got !== null) expect(got).toBe(expected(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('cuts what agents send', () => {
    const body = JSON.stringify({
      name: 'a00001',
      location: 'http://127.20.0.1:8701',
      hostname: 'a00001',
      uptime_s: 86_401,
      cpu_use: 0.25,
      load: [0.5, 0.25, 0.125],
      memory: { total: 16_000_000_000, used: 4_000_000_000 },
      disks: [{ path: '/', total: 100, used: 50 }],
      sessions: [{ session: 's', why: 'attention', text: 'say "hi"\n\tnow', at: 'x' }],
      interval_s: 5,
      key_proof: 'abc',
      key_proof_at: '2026-01-01T00:00:00.000Z',
      results: [],
      empty: {},
      none: [],
      flag: false,
      gone: null,
      neg: -12.5,
      small: 0.000001,
    });
    expect(cut(body)).toBe(expected(body));
    expect(cut('{"name":"a"}')).toBe('{}');
    expect(cut('{}')).toBe('{}');
    expect(cut('{"a":1,"name":"b","c":[1,{"name":2}]}')).toBe('{"a":1,"c":[1,{"name":2}]}');
  });

  it('leaves what only stringify can say to stringify', () => {
    for (const text of [
      '{"a": 1}',
      '{"a":1.0}',
      '{"a":1e3}',
      '{"a":-0}',
      '{"a":0.0000001}',
      '{"a":12345678901234567}',
      '{"a":"\\/"}',
      '{"a":"\\u0041"}',
      '{"a":"é"}',
      '{"a":1,"a":2}',
      '{"b":{"a":1,"a":2}}',
      '{"1":1,"a":2}',
      '{"a":1} ',
      '[1]',
    ]) {
      expect(cut(text), text).toBeNull();
    }
  });
});

describe('takeJsonSource', () => {
  it('gives the bytes the last body was parsed from, once, and nothing for another object', () => {
    const bytes = Buffer.from('{"a":1}');
    const value = JSON.parse(bytes.toString()) as object;
    noteJsonSource(value, bytes);
    expect(takeJsonSource({ ...value })).toBeUndefined();
    expect(takeJsonSource(value)).toBe(bytes);
    expect(takeJsonSource(value)).toBeUndefined();
    noteJsonSource(value, bytes);
    noteJsonSource(JSON.parse('{"b":2}'), Buffer.from('{"b":2}'));
    expect(takeJsonSource(value)).toBeUndefined();
    noteJsonSource([1], bytes);
    expect(takeJsonSource([1])).toBeUndefined();
  });
});
