import { describe, expect, it } from 'vitest';
import { formatDuration, globMatch } from './condition-values.js';
import { ConditionError, firstFailure, parseCondition } from './conditions.js';
import type { Observation } from './observation.js';

const HOUR = 3_600_000;

function seen(extra: Partial<Observation> = {}): Observation {
  return { connected: true, responseTimeMs: 120, ...extra };
}

/** Null when it holds, else the failure text. */
function check(text: string, o: Observation): string | null {
  return parseCondition(text).check(o);
}

/** The position and message a bad condition throws. */
function failure(text: string): { position: number; message: string } {
  try {
    parseCondition(text);
  } catch (error) {
    if (error instanceof ConditionError)
      return { position: error.position, message: error.message };
    throw error;
  }
  throw new Error(`parsed: ${text}`);
}

describe('placeholders', () => {
  it('[STATUS] compares as a number and fails as Gatus shows it', () => {
    expect(check('[STATUS] == 200', seen({ status: 200 }))).toBeNull();
    expect(check('[STATUS] == 200', seen({ status: 503 }))).toBe('[STATUS] (503) == 200');
    expect(check('[STATUS] < 400', seen({ status: 302 }))).toBeNull();
    expect(check('[STATUS] < 400', seen({ status: 500 }))).toBe('[STATUS] (500) < 400');
    expect(check('200 == [STATUS]', seen({ status: 200 }))).toBeNull();
    expect(check('[status] == 200', seen({ status: 200 }))).toBeNull();
  });

  it('[RESPONSE_TIME] in ms, also against a duration', () => {
    expect(check('[RESPONSE_TIME] < 500', seen())).toBeNull();
    expect(check('[RESPONSE_TIME] < 100', seen())).toBe('[RESPONSE_TIME] (120) < 100');
    expect(check('[RESPONSE_TIME] < 1s', seen({ responseTimeMs: 999 }))).toBeNull();
    expect(check('[RESPONSE_TIME] < 1s', seen({ responseTimeMs: 1001 }))).not.toBeNull();
  });

  it('[CONNECTED], [IP] and [DNS_RCODE]', () => {
    expect(check('[CONNECTED] == true', seen())).toBeNull();
    expect(check('[CONNECTED] == true', seen({ connected: false }))).toBe(
      '[CONNECTED] (false) == true',
    );
    expect(check('[CONNECTED] == false', seen({ connected: false }))).toBeNull();
    expect(check('[IP] == 127.0.0.1', seen({ ip: '127.0.0.1' }))).toBeNull();
    expect(check('[IP] == pat(192.168.*)', seen({ ip: '10.0.0.1' }))).toBe(
      '[IP] (10.0.0.1) == pat(192.168.*)',
    );
    expect(check('[DNS_RCODE] == NOERROR', seen({ dnsRcode: 'NOERROR' }))).toBeNull();
    expect(check('[DNS_RCODE] == NOERROR', seen({ dnsRcode: 'NXDOMAIN' }))).toBe(
      '[DNS_RCODE] (NXDOMAIN) == NOERROR',
    );
  });

  it('[CERTIFICATE_EXPIRATION] against durations, shown as a duration', () => {
    const in30days = seen({ certificateExpirationMs: 720 * HOUR });
    expect(check('[CERTIFICATE_EXPIRATION] > 336h', in30days)).toBeNull();
    expect(check('[CERTIFICATE_EXPIRATION] > 48h', in30days)).toBeNull();
    const in1day = seen({ certificateExpirationMs: 24 * HOUR + 90_000 });
    expect(check('[CERTIFICATE_EXPIRATION] > 48h', in1day)).toBe(
      '[CERTIFICATE_EXPIRATION] (24h1m30s) > 48h',
    );
    expect(check('[CERTIFICATE_EXPIRATION] > 30m', seen({ certificateExpirationMs: 60_000 }))).toBe(
      '[CERTIFICATE_EXPIRATION] (1m) > 30m',
    );
    expect(
      check('[CERTIFICATE_EXPIRATION] > 1h30m', seen({ certificateExpirationMs: 2 * HOUR })),
    ).toBeNull();
  });
});

describe('[BODY]', () => {
  const body = JSON.stringify({
    status: 'UP',
    count: 3,
    ok: true,
    data: { items: [{ id: 7, name: 'a' }, { id: 9 }], empty: [] },
    matrix: [[1, 2], [3]],
  });

  it('follows a JSON path with keys and indexes', () => {
    expect(check('[BODY].status == UP', seen({ body }))).toBeNull();
    expect(check('[BODY].data.items[0].id == 7', seen({ body }))).toBeNull();
    expect(check('[BODY].data.items[1].id == 7', seen({ body }))).toBe(
      '[BODY].data.items[1].id (9) == 7',
    );
    expect(check('[BODY].matrix[0][1] == 2', seen({ body }))).toBeNull();
    expect(check('[BODY].count > 2', seen({ body }))).toBeNull();
    expect(check('[BODY].ok == true', seen({ body }))).toBeNull();
  });

  it('a path that finds nothing is INVALID and fails', () => {
    expect(check('[BODY].nope == x', seen({ body }))).toBe('[BODY].nope (INVALID) == x');
    expect(check('[BODY].data.items[5].id == 7', seen({ body }))).toBe(
      '[BODY].data.items[5].id (INVALID) == 7',
    );
    expect(check('[BODY].status == UP', seen({ body: 'not json' }))).toBe(
      '[BODY].status (INVALID) == UP',
    );
  });

  it('len() and has()', () => {
    expect(check('len([BODY].data.items) == 2', seen({ body }))).toBeNull();
    expect(check('len([BODY].data.empty) > 0', seen({ body }))).toBe(
      'len([BODY].data.empty) (0) > 0',
    );
    expect(check('len([BODY].status) == 2', seen({ body }))).toBeNull();
    expect(check('len([BODY]) == 3', seen({ body: '[1,2,3]' }))).toBeNull();
    expect(check('len([BODY]) == 5', seen({ body: 'hello' }))).toBeNull();
    expect(check('has([BODY].errors) == false', seen({ body }))).toBeNull();
    expect(check('has([BODY].data) == true', seen({ body }))).toBeNull();
    expect(check('has([BODY].errors) == true', seen({ body }))).toBe(
      'has([BODY].errors) (false) == true',
    );
  });

  it('pat() and any() on the body and on values', () => {
    expect(check('[BODY] == pat(*UP*)', seen({ body }))).toBeNull();
    expect(check('[BODY].status == any(UP, DEGRADED)', seen({ body }))).toBeNull();
    expect(check('[STATUS] == any(200, 204)', seen({ status: 204 }))).toBeNull();
    expect(check('[STATUS] == any(200, 204)', seen({ status: 500 }))).toBe(
      '[STATUS] (500) == any(200, 204)',
    );
    expect(check('[BODY] != pat(*error*)', seen({ body: 'all good' }))).toBeNull();
  });

  it('never echoes a whole body: a resolved [BODY] is cut to 60 characters', () => {
    const long = 'x'.repeat(5000);
    const failed = check('[BODY] == pat(*ok*)', seen({ body: long })) ?? '';
    expect(failed).toBe(`[BODY] (${'x'.repeat(60)}…) == pat(*ok*)`);
  });

  it('a right-hand literal keeps its spaces, as in Gatus', () => {
    expect(check('[BODY].name == john doe', seen({ body: '{"name":"john doe"}' }))).toBeNull();
  });
});

describe('errors name the position', () => {
  const cases: [string, number, RegExp][] = [
    ['[STAUTS] == 200', 0, /unknown placeholder \[STAUTS\]/],
    ['[STATUS] == [NOPE]', 12, /unknown placeholder \[NOPE\]/],
    ['[DOMAIN_EXPIRATION] > 720h', 0, /unsupported placeholder/],
    ['[STATUS] 200', 9, /missing operator/],
    ['[STATUS]', 8, /missing operator/],
    ['[STATUS] = 200', 9, /unknown operator =/],
    ['[STATUS] === 200', 9, /unknown operator ===/],
    ['[STATUS] ==', 11, /missing the right side/],
    ['== 200', 0, /missing the left side/],
    ['[STATUS == 200', 0, /unbalanced bracket/],
    ['[BODY].items[0 == 1', 12, /unbalanced bracket/],
    ['[BODY].items[x] == 1', 13, /array index must be a number/],
    ['[BODY]..x == 1', 7, /empty key/],
    ['[STATUS].x == 1', 8, /only \[BODY\] takes a path/],
    ['len([BODY].items == 1', 3, /unbalanced parenthesis/],
    ['len([BODY].items] == 1', 16, /unbalanced bracket|expected '\)'/],
    ['len(200) == 1', 4, /len\(\) takes a placeholder/],
    ['[BODY] == pat(*ok*', 13, /unbalanced parenthesis/],
    ['[STATUS] == any(200,,204)', 20, /any\(\) needs values/],
    ['[CERTIFICATE_EXPIRATION] > 336x', 27, /bad number or duration 336x/],
    ['[CERTIFICATE_EXPIRATION] > 48hours', 27, /bad number or duration/],
    ['[RESPONSE_TIME] < fast', 18, /not a number or a duration/],
    ['[IP] < pat(10.*)', 7, /pat\(\) compares only with == or !=/],
    ['[STATUS] == 200)', 15, /unbalanced parenthesis/],
    ['[STATUS] == any(,200)', 16, /any\(\) needs values/],
    ['len([BODY])) == 1', 11, /unbalanced parenthesis/],
    ['1 == 1', 0, /placeholder or function/],
    ['', 0, /missing the left side/],
  ];
  for (const [text, position, message] of cases) {
    it(`${JSON.stringify(text)} → position ${position}`, () => {
      const e = failure(text);
      expect(e.message).toMatch(message);
      expect(e.position).toBe(position);
    });
  }
});

describe('helpers', () => {
  it('globMatch: * and ? only, the rest literal', () => {
    expect(globMatch('*', 'anything')).toBe(true);
    expect(globMatch('1.2.*', '1.2.3.4')).toBe(true);
    expect(globMatch('1.2.*', '1x2.3')).toBe(false);
    expect(globMatch('a?c', 'abc')).toBe(true);
    expect(globMatch('(x)', '(x)')).toBe(true);
    expect(globMatch('*a*b', 'xxaxxbxb')).toBe(true);
    expect(globMatch('*a*b', 'xxaxxbx')).toBe(false);
    expect(globMatch('', '')).toBe(true);
    expect(globMatch('a*', '')).toBe(false);
  });

  it('globMatch stays quick on a large body that does not match', () => {
    const body = 'x'.repeat(1024 * 1024);
    const started = performance.now();
    expect(globMatch('*x*x*x*x*y*', body)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('formatDuration as Go prints it, trailing zero units dropped', () => {
    expect(formatDuration(336 * HOUR)).toBe('336h');
    expect(formatDuration(90 * 60_000)).toBe('1h30m');
    expect(formatDuration(HOUR + 15_000)).toBe('1h0m15s');
    expect(formatDuration(5 * 60_000)).toBe('5m');
    expect(formatDuration(999)).toBe('0s');
    expect(formatDuration(-2 * HOUR)).toBe('-2h');
  });

  it('firstFailure gives the first failing condition, or null', () => {
    const cs = ['[CONNECTED] == true', '[STATUS] == 200', '[RESPONSE_TIME] < 10'].map(
      parseCondition,
    );
    expect(firstFailure(cs, seen({ status: 500 }))).toBe('[STATUS] (500) == 200');
    expect(firstFailure(cs.slice(0, 2), seen({ status: 200 }))).toBeNull();
  });

  it('knows the placeholders a condition reads', () => {
    expect(parseCondition('[CONNECTED] == false').placeholders).toEqual(['CONNECTED']);
    expect(parseCondition('len([BODY].x) > [STATUS]').placeholders).toEqual(['BODY', 'STATUS']);
  });
});

describe("Gatus's own cases (config/endpoint/condition_test.go)", () => {
  const user = '{"user": {"firstName": "john", "lastName": "doe"}}';
  const cases: [string, Partial<Observation>, string | null][] = [
    ['[RESPONSE_TIME] >= 500', { responseTimeMs: 499 }, '[RESPONSE_TIME] (499) >= 500'],
    ['[RESPONSE_TIME] <= 500', { responseTimeMs: 500 }, null],
    ['[RESPONSE_TIME] > 1s', { responseTimeMs: 2000 }, null],
    ['[BODY] == test', { body: 'test' }, null],
    ['[BODY] == 123', { body: '123' }, null],
    ['[BODY] > 123', { body: '100' }, '[BODY] (100) > 123'],
    [
      '[BODY].data.name == john',
      { body: '{"data": {"id": 1}}' },
      '[BODY].data.name (INVALID) == john',
    ],
    [
      'len([BODY].data.name) == 4',
      { body: '{"data": {"id": 1}}' },
      'len([BODY].data.name) (INVALID) == 4',
    ],
    ['[BODY].user.firstName != [BODY].user.lastName', { body: user }, null],
    [
      '[BODY].user.firstName == [BODY].user.lastName',
      { body: user },
      '[BODY].user.firstName (john) == [BODY].user.lastName (doe)',
    ],
    ['[BODY][0].id == 1', { body: '[{"id": 1}, {"id": 2}]' }, null],
    ['[BODY].data == OK', { body: '{"data": null}' }, '[BODY].data (INVALID) == OK'],
    [
      '[BODY].items[0] == OK',
      { body: '{"items": [null, null]}' },
      '[BODY].items[0] (INVALID) == OK',
    ],
    ['[BODY].data == OK', { body: 'null' }, '[BODY].data (INVALID) == OK'],
    ['[BODY][0].name == test', { body: '{"statusCode": 500}' }, '[BODY][0].name (INVALID) == test'],
    ['[BODY].data == 1', { body: '{"data": "0x1"}' }, null],
    ['[BODY].data == 15', { body: '{"data": "0xF"}' }, null],
    ['[BODY].data == 2', { body: '{"data": "0o2"}' }, null],
    ['[BODY].data == 0b10', { body: '{"data": "0b0010"}' }, null],
    ['[BODY].balance > 100', { body: '{"balance": "123.40000000000005"}' }, null],
    ['[CERTIFICATE_EXPIRATION] == 0', {}, null],
    [
      '[CERTIFICATE_EXPIRATION] > 2419200000',
      { certificateExpirationMs: 14 * 24 * HOUR },
      '[CERTIFICATE_EXPIRATION] (336h) > 2419200000',
    ],
    [
      '[CERTIFICATE_EXPIRATION] > 48h',
      { certificateExpirationMs: 24 * HOUR },
      '[CERTIFICATE_EXPIRATION] (24h) > 48h',
    ],
    ['len([BODY]) == 3', { body: '[{"id": 1}, {"id": 2}, {"id": 3}]' }, null],
    ['len([BODY].data) == 8', { body: '{"name": "john.doe"}' }, 'len([BODY].data) (INVALID) == 8'],
    ['len([BODY]) == 8', { body: 'john.doe' }, null],
    ['len([BODY].age) == 2', { body: '{"age":18}' }, null],
    ['len([BODY].adult) == 4', { body: '{"adult":true}' }, null],
    ['len([BODY][0]) == 23', { body: '[{"age":18,"adult":true}]' }, null],
    ['len([BODY]) == 20', { body: '{"name": "john.doe"}' }, null],
    [
      '[BODY].name == pat(bob*)',
      { body: '{"name": "john.doe"}' },
      '[BODY].name (john.doe) == pat(bob*)',
    ],
    ['[BODY].data == pat(*Whatever*)', { body: '{"data": ["hello", "world", "Whatever"]}' }, null],
    ['[STATUS] == pat(4*)', { status: 200 }, '[STATUS] (200) == pat(4*)'],
    ['any(200, 429) == [STATUS]', { status: 429 }, null],
    [
      '[BODY].name == any(john.doe, jane.doe)',
      { body: '{"name": "bob"}' },
      '[BODY].name (bob) == any(john.doe, jane.doe)',
    ],
    ['has([BODY].errors) == false', { body: '{}' }, null],
    [
      'has([BODY].errors) == false',
      { body: '{"errors": ["1"]}' },
      'has([BODY].errors) (true) == false',
    ],
    [
      'pat(*<div id="user">john.doe</div>*) == [BODY]',
      { body: '<html><div id="user">john.doe</div></html>' },
      null,
    ],
  ];
  for (const [text, o, expected] of cases) {
    it(`${text} on ${JSON.stringify(o)}`, () => {
      expect(check(text, seen(o))).toBe(expected);
    });
  }
});
