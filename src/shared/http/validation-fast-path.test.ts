import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Report } from '../wire/report.js';
import { isPrintableText } from './printable-check.js';
import { check, type ValidationIssue } from './pydantic.js';
import { checkBody, fastCheck, isPlainBody } from './validation-hook.js';

/** Bodies near the edges of the Report schema: every field sometimes wrong, odd or long. */
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', 'a', 'web1', 'A'.repeat(64), 'A'.repeat(65), 'http://x/', 'javascript:x'),
);
const value = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
);
/** Mostly `valid`, sometimes any value at all. */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 40 }, { arbitrary: value, weight: 1 });
const service = fc.record(
  {
    name: mostly(fc.constantFrom('backup', 'w', 'x'.repeat(64))),
    kind: mostly(fc.constantFrom('command', 'process')),
    state: mostly(fc.constantFrom('running', 'stopped', 'unknown')),
    actions: mostly(fc.array(fc.constantFrom('start', 'stop'), { maxLength: 2 })),
    board: mostly(fc.array(fc.constantFrom('start', 'stop'), { maxLength: 2 })),
    busy: mostly(fc.boolean()),
    last_exit: mostly(
      fc.oneof(
        fc.constant(null),
        fc.record({
          code: fc.oneof(fc.integer(), fc.constant(null)),
          signal: fc.oneof(text, fc.constant(null)),
          at: text,
        }),
      ),
    ),
  },
  { requiredKeys: ['name', 'kind', 'state', 'actions', 'board', 'busy'] },
);
const report = fc.record(
  {
    name: mostly(fc.constantFrom('lab1', 'a'.repeat(64), 'a.b-c_d')),
    location: mostly(
      fc.constantFrom(
        'http://lab1:8701/',
        `http://x/${'b'.repeat(2039)}`,
        `http://x/${'b'.repeat(2040)}`,
        'https://[::1]:1/?q#f',
      ),
    ),
    key_proof: mostly(fc.oneof(fc.constant('f'.repeat(128)), fc.constant('f'.repeat(129)), text)),
    interval_s: mostly(fc.oneof(fc.double({ min: 0, max: 90_000, noNaN: true }), fc.integer())),
    cpus: mostly(fc.integer({ min: -2, max: 64 })),
    cpu_use: mostly(fc.double({ min: -1, max: 2, noNaN: true })),
    load: mostly(fc.array(fc.double({ noNaN: true }), { maxLength: 3 })),
    memory: mostly(
      fc.record({ total: fc.nat(), free: fc.integer(), used: fc.oneof(fc.nat(), fc.double()) }),
    ),
    services: mostly(fc.array(service, { maxLength: 3 })),
    sessions: mostly(
      fc.array(
        fc.record({
          session: text,
          why: fc.constantFrom('finished', 'attention', 'x'),
          text,
          at: text,
        }),
        { maxLength: 2 },
      ),
    ),
    results: mostly(
      fc.array(fc.record({ id: text, status: fc.integer(), body: value }), { maxLength: 2 }),
    ),
    extra: value,
  },
  { requiredKeys: ['name', 'location'] },
);

/** JSON text the fast path is used for: ASCII, no \\u or \\r escape (see notePlainBody). */
function plain(json: string): boolean {
  return Buffer.byteLength(json) === json.length && !json.includes('\\u') && !json.includes('\\r');
}

describe('the compiled fast path for request bodies', () => {
  it('never accepts a report the 422 checker refuses, and passes it on unchanged', () => {
    const fast = fastCheck(Report);
    expect(fast).not.toBeNull();
    let accepted = 0;
    fc.assert(
      fc.property(report, (body) => {
        // The fast path runs only for plain text; JSON round trip as the parser would see it.
        const json = JSON.stringify(body);
        const parsed = JSON.parse(json) as unknown;
        if (!plain(json) || fast?.Check(parsed) !== true) return;
        accepted += 1;
        const issues: ValidationIssue[] = [];
        const out = check(Report, parsed, ['body'], issues, false);
        expect(issues).toEqual([]);
        expect(out).toEqual(parsed);
      }),
      { numRuns: 10_000 },
    );
    // The property is not vacuous: valid bodies were among the cases.
    expect(accepted).toBeGreaterThan(30);
  });
});

describe('the compiled check for printable bodies', () => {
  it('says what the full compiled check says of every report, printable or not', () => {
    let printable = 0;
    fc.assert(
      fc.property(report, (body) => {
        const bytes = Buffer.from(JSON.stringify(body));
        const parsed = JSON.parse(bytes.toString()) as unknown;
        const isPlain = isPlainBody(bytes);
        const isPrintable = isPrintableText(bytes);
        if (isPrintable) printable += 1;
        const full: ValidationIssue[] = [];
        const fast: ValidationIssue[] = [];
        const a = checkBody(Report, parsed, isPrintable || isPlain, fast, isPrintable);
        const b = checkBody(Report, parsed, isPlain, full);
        expect(fast).toEqual(full);
        expect(a).toEqual(b);
      }),
      { numRuns: 5_000 },
    );
    expect(printable).toBeGreaterThan(100);
  });

  it('is not used for text with a control character, DEL, an escape or non-ASCII', () => {
    for (const text of ['a\u0001b', 'a\u007fb', 'a\nb', 'a"b', 'é', '\u202e']) {
      expect(isPrintableText(Buffer.from(JSON.stringify({ a: text })))).toBe(false);
    }
    expect(isPrintableText(Buffer.from(JSON.stringify({ a: ' ~!#az09' })))).toBe(true);
  });

  it('refuses a report whose session has a control character', () => {
    const report = { name: 'lab1', location: 'http://lab1:8701/', sessions: [] as unknown[] };
    report.sessions.push({ session: 'a\u001bb', why: 'finished', text: 't', at: 'x' });
    const bytes = Buffer.from(JSON.stringify(report));
    const issues: ValidationIssue[] = [];
    const printable = isPrintableText(bytes);
    checkBody(
      Report,
      JSON.parse(bytes.toString()),
      printable || isPlainBody(bytes),
      issues,
      printable,
    );
    expect(issues.map((i) => i.type)).toContain('string_pattern_mismatch');
  });
});
