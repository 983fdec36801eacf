import { connect } from 'node:net';
import fc from 'fast-check';
import { Client } from 'undici';

/**
 * How many cases a property runs: a few thousand per endpoint in `npm test`, many more with
 * `npm run fuzz` (which sets PANOPTES_FUZZ_RUNS).
 */
export function fuzzRuns(inNpmTest: number): number {
  const fromEnv = Number(process.env.PANOPTES_FUZZ_RUNS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : inNpmTest;
}

/** A fixed seed from PANOPTES_FUZZ_SEED (to replay a failure), else fast-check's own. */
export function fuzzSeed(): { seed?: number } {
  const seed = Number(process.env.PANOPTES_FUZZ_SEED);
  return process.env.PANOPTES_FUZZ_SEED && Number.isInteger(seed) ? { seed } : {};
}

/** How much longer than usual a fuzz test may run (PANOPTES_FUZZ_RUNS scales it). */
export function fuzzTimeoutMs(runs: number, perRunMs = 4): number {
  return Math.max(60_000, runs * perRunMs * 12);
}

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

/** One generated HTTP request; `path` includes the query string. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  credential: Credential;
  /** Free text shown when the case fails (what the generator meant to do). */
  kind: string;
}

/** What came back. */
export interface FuzzAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

// --- arbitraries -------------------------------------------------------------------------

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

/** Authorization headers that are not quite right, around a valid token. */
function malformed(token: string, variant: number): string {
  const variants = [
    `Basic ${Buffer.from(`u:${token}`).toString('base64')}`,
    'Bearer',
    'Bearer ',
    `Bearer ${token} extra`,
    `Bearer\t${token}`,
    `bearer ${token}`,
    `Token ${token}`,
    `Bearer ${token.slice(0, -1)}`,
    `Bearer ${token}${token}`,
  ];
  return variants[variant % variants.length] as string;
}

/** A request to one endpoint: its method and path template, with hostile variations. */
export function requestTo(
  right: string,
  pathOf: fc.Arbitrary<string>,
  shaped: fc.Arbitrary<unknown> | null,
  kind: string,
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: method(right),
      path: pathOf,
      query,
      headers,
      body: body(shaped),
      credential,
    })
    .map((r) =>
      printable({
        method: r.method,
        path: `${r.path}${r.query}`,
        headers: r.headers,
        body: r.method === 'GET' || r.method === 'HEAD' ? null : r.body,
        credential: r.credential,
        kind,
      }),
    );
}

/** Makes fast-check print a generated value cut to 500 characters. */
export function shortPrinted<T extends object>(value: T): T {
  Object.defineProperty(value, fc.toStringMethod, {
    value: () => {
      const text = JSON.stringify(value, (_k, v: unknown) =>
        v instanceof Uint8Array ? `<${v.length} bytes>` : v,
      );
      return text.length > 500 ? `${text.slice(0, 500)}… (${text.length} chars)` : text;
    },
    enumerable: false,
  });
  return value;
}

/** Makes fast-check print a request short (bodies and headers can be megabytes). */
function printable(req: FuzzRequest): FuzzRequest {
  Object.defineProperty(req, fc.toStringMethod, { value: () => describe(req), enumerable: false });
  return req;
}

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

// --- the client ----------------------------------------------------------------------------

/** Tokens by credential kind; `second` is the other valid token (registration, board key). */
export interface Tokens {
  main: string;
  second: string;
  wrong: string;
}

/**
 * Sends generated requests over keep-alive connections. Requests with a wrong token come from a
 * second loopback address (127.0.0.2), so the per-address limit on failed tokens blocks only it
 * (and its later requests exercise the 429).
 */
export class FuzzClient {
  private main: Client;
  private wrong: Client;
  /** Every body and header block received, for the secret scan. */
  readonly seen: string[] = [];
  sent = 0;
  /** Requests sent again after the connection failed under them. */
  retried = 0;
  /** How many answers of each status, by the request's kind. */
  readonly statuses: Record<string, Record<number, number>> = {};

  constructor(
    private readonly base: string,
    private readonly tokens: Tokens,
  ) {
    this.main = this.client('127.0.0.1');
    this.wrong = this.client('127.0.0.2');
  }

  private client(localAddress: string): Client {
    return new Client(this.base, {
      pipelining: 1,
      keepAliveTimeout: 4000,
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
      localAddress,
    });
  }

  /**
   * Whether a request is sent from the second address: malformed headers and generated
   * `token=` parameters may carry a wrong token too, and the main address must never be blocked.
   */
  usesSecondAddress(req: FuzzRequest): boolean {
    return (
      req.credential.startsWith('wrong') ||
      req.credential.startsWith('malformed') ||
      /[?&](token|%74oken)(=|&|$)/i.test(req.path)
    );
  }

  /** Sends one request; a connection error is returned, not thrown. */
  async send(req: FuzzRequest): Promise<FuzzAnswer | { error: string }> {
    const headers: Record<string, string> = { ...req.headers };
    let path = req.path;
    const token =
      req.credential.startsWith('main') || req.credential.startsWith('malformed')
        ? this.tokens.main
        : req.credential.startsWith('second')
          ? this.tokens.second
          : req.credential.startsWith('wrong')
            ? this.tokens.wrong
            : null;
    if (token !== null) {
      if (req.credential.startsWith('malformed')) {
        headers.authorization = malformed(token, Number(req.credential.split('-')[1]));
      } else if (req.credential.endsWith('query')) {
        path += `${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
      } else {
        headers.authorization = `Bearer ${token}`;
      }
    }
    const fromSecond = this.usesSecondAddress(req);
    this.sent += 1;
    let answer = await this.once(fromSecond, req.method, path, headers, req.body);
    if ('error' in answer) {
      // The server may close a keep-alive connection after an answer (431, 400, 413) before
      // the client sees it; the next request on it then fails. Retried once on a fresh one.
      this.retried += 1;
      answer = await this.once(fromSecond, req.method, path, headers, req.body);
    }
    const byStatus = this.statuses[req.kind] ?? {};
    this.statuses[req.kind] = byStatus;
    const status = 'error' in answer ? 0 : answer.status;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    return answer;
  }

  private async once(
    fromSecond: boolean,
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | Uint8Array | null,
  ): Promise<FuzzAnswer | { error: string }> {
    const client = fromSecond ? this.wrong : this.main;
    try {
      const response = await client.request({
        method,
        path,
        headers,
        ...(body === null ? {} : { body }),
      });
      const text = await response.body.text();
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(response.headers)) {
        flat[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
      }
      this.seen.push(text, JSON.stringify(flat));
      return { status: response.statusCode, headers: flat, text };
    } catch (error) {
      // The connection is gone (or undici refused the input): start a fresh one.
      const e = error as { code?: string; message?: string };
      await client.destroy().catch(() => undefined);
      if (client === this.main) this.main = this.client('127.0.0.1');
      else this.wrong = this.client('127.0.0.2');
      return { error: `${e.code ?? 'error'}: ${e.message ?? String(error)}` };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.main.close(), this.wrong.close()]);
  }
}

// --- the properties ------------------------------------------------------------------------

function isIssue(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const i = v as Record<string, unknown>;
  const keys = Object.keys(i);
  return (
    Array.isArray(i.loc) &&
    i.loc.every((p) => typeof p === 'string' || Number.isInteger(p)) &&
    typeof i.msg === 'string' &&
    typeof i.type === 'string' &&
    (i.ctx === undefined || (i.ctx !== null && typeof i.ctx === 'object')) &&
    keys.every((k) => ['loc', 'msg', 'type', 'ctx', 'input', 'url'].includes(k))
  );
}

/** Whether a body is FastAPI's error shape: {"detail": "…"} or an HTTPValidationError. */
export function isErrorShape(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  if (Object.keys(v).length !== 1 || !('detail' in v)) return false;
  if (typeof v.detail === 'string') return v.detail.length > 0;
  return Array.isArray(v.detail) && v.detail.length > 0 && v.detail.every(isIssue);
}

/**
 * What is wrong with an answer: a 5xx, a connection cut, a 4xx not of the documented shape, a
 * missing header the status promises, or a secret in it. Empty when all is well.
 */
export function problemsWith(
  req: FuzzRequest,
  answer: FuzzAnswer | { error: string },
  secrets: readonly string[],
  allowCut: (req: FuzzRequest) => boolean = bodyOverLimit,
): string[] {
  if ('error' in answer) {
    return allowCut(req) ? [] : [`the connection failed: ${answer.error}`];
  }
  const problems: string[] = [];
  const { status, headers: h, text } = answer;
  if (status >= 500) problems.push(`answered ${status}: ${text.slice(0, 300)}`);
  if (status >= 400 && status < 500 && req.method !== 'HEAD') {
    if (!isErrorShape(text))
      problems.push(`a ${status} not of the documented shape: ${text.slice(0, 300)}`);
    if (!/^application\/json/.test(h['content-type'] ?? '')) {
      problems.push(`a ${status} with content-type ${h['content-type']}`);
    }
  }
  if (status === 401 && h['www-authenticate'] !== 'Bearer')
    problems.push('401 without WWW-Authenticate: Bearer');
  if (status === 405 && !(h.allow ?? '').length) problems.push('405 without Allow');
  if (status === 429 && !/^\d+$/.test(h['retry-after'] ?? ''))
    problems.push('429 without Retry-After');
  const all = `${text}\n${JSON.stringify(h)}`;
  secrets.forEach((s, i) => {
    if (all.includes(s) || all.includes(encodeURIComponent(s)))
      problems.push(`secret #${i} in the answer`);
  });
  return problems;
}

/** Bodies over 1 MiB: the server may answer 413 and close before it has read them. */
export function bodyOverLimit(req: FuzzRequest): boolean {
  return req.body !== null && req.body.length > 1024 * 1024;
}

/** A short description of a request for a failure message (long parts cut). */
export function describe(req: FuzzRequest): string {
  const body =
    req.body === null
      ? 'no body'
      : typeof req.body === 'string'
        ? `body ${JSON.stringify(req.body.slice(0, 200))}${req.body.length > 200 ? `… (${req.body.length} chars)` : ''}`
        : `${req.body.length} bytes`;
  return `${req.kind}: ${req.method} ${req.path.slice(0, 300)} [${req.credential}] ${JSON.stringify(req.headers).slice(0, 300)} ${body}`;
}

// --- raw bytes -----------------------------------------------------------------------------

/**
 * Sends raw bytes on a fresh connection and collects what comes back until the server closes
 * or `waitMs` passes (then the client closes).
 */
export function rawExchange(
  port: number,
  data: string | Uint8Array,
  waitMs = 1500,
): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('connect', () => socket.write(data));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One whole answer (not a switch of protocols) is all a case needs: no need to wait.
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0 || text.startsWith('HTTP/1.1 101')) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end));
      if (length?.[1] !== undefined && text.length >= end + 4 + Number(length[1])) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
}

/** Splits raw HTTP/1.1 answers (no chunked bodies expected) into status, headers and body. */
export function parseRawAnswers(text: string): FuzzAnswer[] {
  const answers: FuzzAnswer[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const lines = rest.slice(0, end).split('\r\n');
    const status = Number(lines[0]?.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? '0');
    answers.push({ status, headers, text: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return answers;
}

/** WebSocket handshakes, good and bad, on the given paths (both programs take these). */
export function upgradeHeads(
  paths: readonly string[],
  upgrades: readonly string[],
  protocols: readonly (string | null)[],
): fc.Arbitrary<string> {
  return fc
    .record({
      path: fc.constantFrom(...paths),
      method: fc.constantFrom('GET', 'GET', 'POST'),
      upgrade: fc.constantFrom(...upgrades),
      key: fc.constantFrom('dGhlIHNhbXBsZSBub25jZQ==', 'x', ''),
      version: fc.constantFrom('13', '8', '12', 'x'),
      protocol: fc.constantFrom(...protocols),
    })
    .map(
      (h) =>
        `${h.method} ${h.path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: ${h.upgrade}\r\n` +
        `Sec-WebSocket-Key: ${h.key}\r\nSec-WebSocket-Version: ${h.version}\r\n` +
        `${h.protocol === null ? '' : `Sec-WebSocket-Protocol: ${h.protocol}\r\n`}\r\n`,
    );
}

/**
 * The raw-bytes property of both programs: each head, sent on its own connection, is answered
 * with no 5xx and only FastAPI-shaped 4xx bodies (or the connection is closed). Every answer
 * text is kept in `received` for the secret scan.
 */
export async function assertRawHeads(
  port: number,
  head: fc.Arbitrary<string | Uint8Array>,
  received: string[],
  parameters: fc.Parameters<[{ data: string | Uint8Array }]>,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      head.map((data) => shortPrinted({ data })),
      async ({ data }) => {
        const { text } = await rawExchange(port, data, 400);
        received.push(text);
        for (const answer of parseRawAnswers(text)) {
          const what = JSON.stringify(String(data).slice(0, 200));
          if (answer.status >= 500) throw new Error(`answered ${answer.status} to ${what}`);
          if (answer.status >= 400 && !isErrorShape(answer.text)) {
            throw new Error(
              `a ${answer.status} not of the documented shape (${answer.text}) to ${what}`,
            );
          }
        }
      },
    ),
    parameters,
  );
}

/**
 * The HTTP property of both programs: every generated request is answered well (see
 * problemsWith), and the main test address is never blocked (else only 429s would be tested).
 * `onCase` is called once per case (for counting).
 */
export async function assertAnswersWell(
  client: FuzzClient,
  arbitrary: fc.Arbitrary<FuzzRequest>,
  secrets: readonly string[],
  parameters: fc.Parameters<[FuzzRequest]>,
  onCase: () => void = () => undefined,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbitrary, async (req) => {
      onCase();
      const answer = await client.send(req);
      const problems = problemsWith(req, answer, secrets);
      if (!client.usesSecondAddress(req) && 'status' in answer && answer.status === 429) {
        problems.push('the main address was blocked: the fuzz would test nothing but 429');
      }
      if (problems.length > 0) {
        throw new Error(`${problems.join('; ')}\n  request: ${describe(req)}`);
      }
    }),
    parameters,
  );
}
