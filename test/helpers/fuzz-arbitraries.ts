// The parts of generated requests: names, segments, queries, headers, bodies, methods, credentials.
import fc from 'fast-check';

/** Which credential a generated request presents, and how. */
export type Credential =
  | 'none'
  | 'main'
  | 'main-query'
  | 'second'
  | 'second-query'
  | 'wrong'
  | 'wrong-query'
  | `malformed-${number}`;

/** A name the API accepts: ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$. */
export const validName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/);

const oddSegments = [
  '',
  '.',
  '..',
  '%2e%2e',
  '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%2F',
  '%00',
  '%zz',
  '%',
  '%E0%A4%A',
  '%C0%AE%C0%AE',
  '%FF%FE',
  '%F0%9F%92%A9',
  '~root',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'start',
  'stop',
  'restart',
  'START',
  'en',
  'de',
  'xx-YYYY',
  'a'.repeat(64),
  'a'.repeat(65),
  'a'.repeat(499),
  'a'.repeat(501),
  'a'.repeat(3000),
  '-leading-dash',
  'trailing.',
  'x;y',
  'x,y',
  "x'y",
  'x"y',
  'x<y>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-looking segment, on purpose
  '${HOME}',
  '$(id)',
];

/** Characters undici lets through raw in a path: printable ASCII and Latin-1, minus ? and #. */
const rawPathChar = fc
  .integer({ min: 0x21, max: 0xff })
  .filter((c) => c !== 0x3f && c !== 0x23 && c !== 0x2f && (c < 0x7f || c > 0x9f))
  .map((c) => String.fromCharCode(c));

/** One path segment: mostly meaningful, often hostile. */
export const segment: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: validName },
  { weight: 3, arbitrary: fc.constantFrom(...oddSegments) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.string({ unit: rawPathChar, maxLength: 30 }) },
);

const queryKeys = fc.oneof(
  fc.constantFrom(
    'limit',
    'limit',
    'token',
    'token',
    '__proto__',
    'constructor',
    'limit[]',
    'limit[0]',
    'a',
    '',
    '%00',
    'limit%00',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 10 }).map(encodeURIComponent),
);

const queryValues = fc.oneof(
  fc.constantFrom(
    '1',
    '200',
    '10000',
    '10001',
    '0',
    '-1',
    '1e3',
    '1.5',
    '0x10',
    '%207%20',
    'abc',
    '',
    '%',
    '%zz',
    '9'.repeat(400),
    'NaN',
    'Infinity',
  ),
  fc.string({ unit: 'binary', maxLength: 30 }).map(encodeURIComponent),
  fc.integer().map(String),
);

/** A query string (with its `?`), or none. */
export const query: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.tuple(queryKeys, fc.option(queryValues, { nil: undefined })), {
        minLength: 1,
        maxLength: 5,
      })
      .map((pairs) => `?${pairs.map(([k, v]) => (v === undefined ? k : `${k}=${v}`)).join('&')}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('?', '?&&', '?==', '?&=&=', '?a=1&a=2&a=3', '?;;') },
);

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/vnd.panoptes+json',
  'application/jsonx',
  'APPLICATION/JSON',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  'image/png',
  ';;;',
  '*/*',
  'application/json;;',
  'application',
  ' ',
);

const headerName = fc
  .stringMatching(/^[a-z][a-z0-9-]{0,20}$/)
  .filter(
    (n) =>
      ![
        'connection',
        'content-length',
        'transfer-encoding',
        'expect',
        'upgrade',
        'keep-alive',
        'host',
        'te',
        'trailer',
        'proxy-connection',
        'http2-settings',
      ].includes(n),
  );

/** A header value undici accepts: visible ASCII, space, tab and Latin-1 (no CR, LF or NUL). */
const headerValue = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

/** `arbitrary` once in `1 + never` cases, else undefined. */
function rarely<T>(arbitrary: fc.Arbitrary<T>, never: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: never, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** Extra request headers, hostile ones included. */
export const headers: fc.Arbitrary<Record<string, string>> = fc
  .record({
    contentType: rarely(contentTypes, 2),
    accept: rarely(
      fc.constantFrom('application/json', 'text/html', '*/*', '', 'application/xml'),
      4,
    ),
    encoding: rarely(fc.constantFrom('gzip', 'br', 'deflate', 'x-nonsense', 'identity'), 8),
    ifNoneMatch: rarely(fc.oneof(fc.constant('*'), headerValue), 8),
    forwarded: rarely(fc.constantFrom('10.0.0.1', '127.0.0.9, 10.1.1.1', 'nonsense'), 8),
    extra: fc.array(fc.tuple(headerName, headerValue), { maxLength: 3 }),
    big: rarely(fc.constantFrom(8 * 1024, 15 * 1024, 20 * 1024), 20),
  })
  .map((h) => {
    const out: Record<string, string> = {};
    for (const [name, value] of h.extra) out[name] = value;
    if (h.contentType !== undefined) out['content-type'] = h.contentType;
    if (h.accept !== undefined) out.accept = h.accept;
    if (h.encoding !== undefined) out['content-encoding'] = h.encoding;
    if (h.ifNoneMatch !== undefined) out['if-none-match'] = h.ifNoneMatch;
    if (h.forwarded !== undefined) out['x-forwarded-for'] = h.forwarded;
    if (h.big !== undefined) out['x-padding'] = 'p'.repeat(h.big);
    return out;
  });

/** JSON nested `depth` levels deep: arrays, objects, or both. */
export function nested(depth: number, style: 'array' | 'object' | 'mixed'): string {
  if (style === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  if (style === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return `${'[{"a":'.repeat(depth)}1${'}]'.repeat(depth)}`;
}

const deep = fc
  .tuple(
    fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 300, max: 60_000 })),
    fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed'),
    fc.constantFrom('bare', 'member'),
  )
  .map(([depth, style, where]) =>
    where === 'bare'
      ? nested(depth, style)
      : `{"name":"deep","location":"http://deep.example","session":"s","why":"finished","text":"","x":${nested(depth, style)}}`,
  );

/** Bodies over the report cap (64 KiB) and the body cap (1 MiB): costly, so mostly the small ones. */
const huge = fc
  .oneof(
    { weight: 12, arbitrary: fc.constant(64 * 1024 + 1) },
    { weight: 6, arbitrary: fc.constant(256 * 1024) },
    { weight: 3, arbitrary: fc.constant(1024 * 1024 + 1) },
    { weight: 1, arbitrary: fc.constant(3 * 1024 * 1024) },
  )
  .map((n) => `{"name":"huge","location":"http://huge.example","pad":"${'a'.repeat(n)}"}`);

const anyJson = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null');

const weirdText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'true',
    '"a string"',
    '[]',
    '{}',
    '\uFEFF{}',
    '{"a":1,}',
    "{'a':1}",
    '{"a":NaN}',
    '{"a":1e99999}',
    '{"a":"\\ud800"}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"a":1}{"b":2}',
    '\u0000',
    'a=1&b=2',
    '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--',
  ),
);

const bytes = fc.uint8Array({ maxLength: 1500 });

/** A request body: none, JSON, shaped JSON from `shaped`, deep, huge, text or raw bytes. */
export function body(
  shaped: fc.Arbitrary<unknown> | null,
): fc.Arbitrary<string | Uint8Array | null> {
  const options: fc.WeightedArbitrary<string | Uint8Array | null>[] = [
    { weight: 6, arbitrary: fc.constant(null) },
    { weight: 6, arbitrary: anyJson },
    { weight: 4, arbitrary: weirdText },
    { weight: 2, arbitrary: bytes },
    { weight: 2, arbitrary: deep },
    { weight: 1, arbitrary: huge },
  ];
  if (shaped !== null) {
    options.push({
      weight: 12,
      arbitrary: shaped.map((v) => JSON.stringify(v) ?? 'null'),
    });
  }
  return fc.oneof(...options);
}

/** Mostly the right method, sometimes any other (including ones Node refuses to parse). */
export function method(right: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(right) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
    },
    { weight: 1, arbitrary: fc.constantFrom('PROPFIND', 'PURGE', 'SEARCH', 'LINK', 'QUERY') },
  );
}

/** Mostly valid credentials, often none, wrong or malformed ones. */
export const credential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Credential>('main') },
  {
    weight: 6,
    arbitrary: fc.constantFrom<Credential>(
      'main-query',
      'second',
      'second-query',
      'none',
      'wrong',
      'wrong-query',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 8 }).map((n): Credential => `malformed-${n}`) },
);

/** A random path anywhere (under /api and elsewhere). */
export const anyPath: fc.Arbitrary<string> = fc.oneof(
  fc.array(segment, { maxLength: 6 }).map((s) => `/${s.join('/')}`),
  fc.array(segment, { maxLength: 5 }).map((s) => `/api/${s.join('/')}`),
  fc.constantFrom(
    '/',
    '//',
    '/api',
    '/api/',
    '//api/board',
    '/api//board',
    '/api/board/',
    '/API/BOARD',
    '/api/./board',
    '/api/../api/board',
    '/api/%62oard',
    '/api/board%00',
    '/api/board;x',
    '/proxy',
    '/proxy/',
    '/index.html',
    '/../../etc/passwd',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/assets/../../../etc/passwd',
    '/favicon.ico',
  ),
);
