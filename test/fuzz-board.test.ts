import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { anyPath, headers, query, segment, validName } from './helpers/fuzz-arbitraries.js';
import { isErrorShape } from './helpers/fuzz-checks.js';
import { FuzzClient } from './helpers/fuzz-client.js';
import {
  assertAnswersWell,
  assertRawHeads,
  fuzzRuns,
  fuzzSeed,
  fuzzTimeoutMs,
} from './helpers/fuzz-properties.js';
import { upgradeHeads } from './helpers/fuzz-raw.js';
import {
  describe as describeRequest,
  type FuzzRequest,
  requestTo,
  shortPrinted,
} from './helpers/fuzz-requests.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'fuzz-board-token-5b0c9e1d2f3a';
const REGISTRATION = 'fuzz-registration-7d2e4f6a8b0c';
const KEY = 'fuzz-machine-key-1a3c5e7f9b2d';
const AGENT_TOKEN = 'fuzz-agent-token-0e2f4a6c8d1b';
const SECRETS = [TOKEN, REGISTRATION, KEY, AGENT_TOKEN];

/** Cases per endpoint: a few thousand in npm test, PANOPTES_FUZZ_RUNS under npm run fuzz. */
const RUNS = fuzzRuns(2000);
const SEED = fuzzSeed();

/** Names the report, do and forget cases share, so that forgetting finds machines. */
const labName = fc.constantFrom(...Array.from({ length: 8 }, (_, i) => `lab-${i}`));

const validReport = fc.record(
  {
    name: fc.oneof(labName, validName),
    location: fc.constantFrom(
      'http://lab.example:8701',
      'https://lab.example/',
      'http://10.0.0.1:1',
    ),
    hostname: fc.string({ maxLength: 30 }),
    cpus: fc.nat(512),
    load: fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { maxLength: 3 }),
    uptime_s: fc.nat(),
    results: fc.array(
      fc.record({
        id: fc.uuid(),
        status: fc.constantFrom(200, 403, 404, 409, 500),
        body: fc.jsonValue({ maxDepth: 2 }),
      }),
      { maxLength: 2 },
    ),
    custom: fc.jsonValue({ maxDepth: 3 }),
  },
  { requiredKeys: ['name', 'location'] },
);

const hostileReport = fc.record(
  {
    name: fc.oneof(
      { weight: 3, arbitrary: fc.oneof(labName, validName) },
      { weight: 1, arbitrary: fc.constantFrom('m1', 'M1', 'm1 ') },
      { weight: 2, arbitrary: fc.oneof(fc.string(), fc.integer(), fc.constant(null)) },
    ),
    location: fc.oneof(
      fc.constantFrom(
        'http://lab.example:8701',
        'https://lab.example/',
        'javascript:alert(1)',
        'http://',
        'http:// x',
        '',
        `http://${'a'.repeat(5000)}`,
      ),
      fc.webUrl(),
      fc.string(),
    ),
    hostname: fc.oneof(fc.string(), fc.integer()),
    cpus: fc.oneof(fc.integer(), fc.double(), fc.string()),
    load: fc.oneof(fc.array(fc.double(), { maxLength: 3 }), fc.string()),
    memory: fc.oneof(
      fc.record({ total: fc.integer(), free: fc.integer(), used: fc.integer() }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    sessions: fc.array(
      fc.record({ session: fc.string(), why: fc.string(), text: fc.string(), at: fc.string() }),
      { maxLength: 3 },
    ),
    results: fc.oneof(
      fc.array(
        fc.record({
          id: fc.oneof(fc.uuid(), fc.string({ maxLength: 70 })),
          status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.integer(), fc.string()),
          body: fc.jsonValue({ maxDepth: 3 }),
        }),
        { maxLength: 4 },
      ),
      fc.constant(Array.from({ length: 101 }, (_, i) => ({ id: `r${i}`, status: 200, body: {} }))),
    ),
    extra: fc.jsonValue({ maxDepth: 3 }),
  },
  { requiredKeys: [] },
);

const report = fc.oneof(
  { weight: 3, arbitrary: validReport },
  { weight: 2, arbitrary: hostileReport },
);

/** Every endpoint of the board (and a random path anywhere) as a request generator. */
const ENDPOINTS: Record<string, fc.Arbitrary<FuzzRequest>> = {
  'GET /api/health': requestTo('GET', fc.constant('/api/health'), null, 'health'),
  'GET /api/board': requestTo('GET', fc.constant('/api/board'), null, 'board'),
  'POST /api/do/{name}/{what}/{action}': requestTo(
    'POST',
    fc
      .tuple(
        fc.oneof(fc.constantFrom('m1', 'm1'), labName, segment),
        fc.oneof(fc.constantFrom('backup', 'backup', 'other'), segment),
        fc.oneof(fc.constantFrom('start', 'stop'), segment),
      )
      .map(([n, w, a]) => `/api/do/${n}/${w}/${a}`),
    null,
    'do',
  ),
  'GET /api/journal': requestTo('GET', fc.constant('/api/journal'), null, 'journal'),
  'GET /api/language/{code}': requestTo(
    'GET',
    fc
      .oneof(fc.constantFrom('en', 'de', 'fr', 'es', 'ja', 'xx', 'en-GB'), segment)
      .map((c) => `/api/language/${c}`),
    null,
    'language',
  ),
  'GET /api/languages': requestTo('GET', fc.constant('/api/languages'), null, 'languages'),
  'POST /api/report': requestTo('POST', fc.constant('/api/report'), report, 'report'),
  'DELETE /api/machines/{name}': requestTo(
    'DELETE',
    fc
      .oneof({ weight: 3, arbitrary: labName }, fc.constant('m1'), segment)
      .map((n) => `/api/machines/${n}`),
    null,
    'forget',
  ),
  'GET /api/openapi.json': requestTo('GET', fc.constant('/api/openapi.json'), null, 'openapi'),
  'GET /api/live (plain HTTP)': requestTo('GET', fc.constant('/api/live'), null, 'live'),
  'any path': fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
      path: anyPath,
      query,
      headers,
    })
    .chain((r) => requestTo(r.method, fc.constant(`${r.path}${r.query}`), null, 'anywhere')),
};

describe('fuzzing every endpoint of the board', () => {
  const dir = tempDir('panoptes-fuzz-board-');
  const http = new Recorder();
  const received: string[] = [];
  let agent: RunningProgram;
  let board: RunningProgram;
  let client: FuzzClient;
  const counts: Record<string, number> = {};

  beforeAll(async () => {
    agent = await startAgent(
      writeAgentConfig(dir, 'm1', {
        name: 'm1',
        token: AGENT_TOKEN,
        board_key: KEY,
        data_dir: `${dir.path}/agent-data`,
        services: { backup: { start: ['true'], stop: ['true'], board: ['start', 'stop'] } },
      }),
      { env: { PANOPTES_LOG_LEVEL: 'info' } },
    );
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.5,
        machines: [{ name: 'm1', url: agent.url, key: KEY }],
      }),
      // Debug level logs every request line: the scan then covers every URL the fuzz sent.
      { env: { PANOPTES_LOG_LEVEL: process.env.FUZZ_LOG ?? 'debug' } },
    );
    client = new FuzzClient(board.url, {
      main: TOKEN,
      second: REGISTRATION,
      wrong: 'fuzz-wrong-token-000000000000',
    });
  });

  afterAll(async () => {
    await client?.close();
    await board?.stop();
    await agent?.stop();
    dir.cleanup();
  });

  for (const [endpoint, arbitrary] of Object.entries(ENDPOINTS)) {
    it(
      `${endpoint}: never a 5xx or a cut connection, 4xx always FastAPI-shaped, no secret (${RUNS} cases)`,
      async () => {
        counts[endpoint] = 0;
        await assertAnswersWell(client, arbitrary, SECRETS, { numRuns: RUNS, ...SEED }, () => {
          counts[endpoint] = (counts[endpoint] ?? 0) + 1;
        });
        expect(board.child.exitCode).toBeNull();
        const health = await http.call(`${board.url}/api/health`);
        expect(health.status).toBe(200);
        // Not only refusals: valid requests among the cases got through (the live route has
        // nothing but 426 for plain HTTP).
        const kind =
          describeRequest(fc.sample(arbitrary, { numRuns: 1, seed: 1 })[0] as FuzzRequest).split(
            ':',
          )[0] ?? '';
        const ok = Object.entries(client.statuses[kind] ?? {}).filter(([s]) => s.startsWith('2'));
        // (Checked with enough cases to expect some: a short PANOPTES_FUZZ_RUNS may have none.)
        if (kind !== 'live' && RUNS >= 500) expect(ok.length).toBeGreaterThan(0);
      },
      fuzzTimeoutMs(RUNS),
    );
  }

  it(
    `GET /api/live (WebSocket): odd handshakes and frames never crash it (${Math.ceil(RUNS / 10)} cases)`,
    async () => {
      const wsUrl = board.url.replace('http', 'ws');
      await fc.assert(
        fc.asyncProperty(
          fc
            .record({
              token: fc.constantFrom<'board' | 'registration' | 'wrong' | 'none'>(
                'board',
                'board',
                'registration',
                'none',
              ),
              inQuery: fc.boolean(),
              // A generated token= would be a wrong token from the main address.
              query: query.filter((q) => !/token/i.test(q)),
              headers,
              frames: fc.array(
                fc.oneof(
                  fc.string({ maxLength: 200 }),
                  fc.uint8Array({ maxLength: 200 }),
                  fc.constantFrom('x'.repeat(70 * 1024), '{"type":"board"}', 'null'),
                ),
                { maxLength: 4 },
              ),
            })
            .map(shortPrinted),
          async (c) => {
            const token =
              c.token === 'board' ? TOKEN : c.token === 'registration' ? REGISTRATION : null;
            let url = `${wsUrl}/api/live${c.query}`;
            const h: Record<string, string> = {};
            for (const [k, v] of Object.entries(c.headers)) {
              if (k !== 'content-type' && k !== 'content-encoding') h[k] = v;
            }
            if (token !== null) {
              if (c.inQuery) url += `${url.includes('?') ? '&' : '?'}token=${token}`;
              else h.authorization = `Bearer ${token}`;
            }
            const socket = new WebSocket(url, { headers: h, handshakeTimeout: 10_000 });
            const outcome = await new Promise<{
              status?: number;
              body?: string;
              opened?: boolean;
              error?: string;
            }>((resolve) => {
              socket.on('message', (data) => received.push(String(data)));
              socket.once('open', () => {
                for (const frame of c.frames) socket.send(frame);
                setTimeout(() => {
                  socket.close();
                  resolve({ opened: true });
                }, 20);
              });
              socket.once('unexpected-response', (_req, res) => {
                let text = '';
                res.on('data', (chunk: Buffer) => {
                  text += chunk.toString('utf8');
                });
                res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
              });
              socket.once('error', (error) => resolve({ error: String(error) }));
            });
            if (outcome.status !== undefined) {
              received.push(outcome.body ?? '');
              if (outcome.status >= 500 || !isErrorShape(outcome.body ?? '')) {
                throw new Error(`handshake answered ${outcome.status}: ${outcome.body}`);
              }
            }
            if (
              outcome.error !== undefined &&
              !/closed before|socket hang up|ECONNRESET/.test(outcome.error)
            ) {
              throw new Error(`handshake failed: ${outcome.error}`);
            }
            // Refused only for what else is wrong with the handshake: headers over 16 KiB.
            if (token === TOKEN && outcome.status !== undefined && outcome.status !== 431) {
              throw new Error(`the board token was refused: ${outcome.status} ${outcome.body}`);
            }
          },
        ),
        { numRuns: Math.ceil(RUNS / 10), ...SEED },
      );
      expect(board.child.exitCode).toBeNull();
    },
    fuzzTimeoutMs(RUNS),
  );

  it(
    `raw bytes: malformed request heads are answered 4xx FastAPI-shaped or closed (${Math.ceil(RUNS / 10)} cases)`,
    async () => {
      const port = Number(new URL(board.url).port);
      const line = fc.string({ unit: 'binary-ascii', maxLength: 60 });
      const head = fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 400 }),
        fc
          .string({ unit: 'binary-ascii', minLength: 1, maxLength: 300 })
          .map((s) => `${s}\r\n\r\n`),
        fc
          .tuple(
            fc.constantFrom('GET', 'POST', 'FOO', 'get', 'G\x00T', ''),
            line,
            fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9', ''),
          )
          .map(([m, p, v]) => `${m} /api/${p} ${v}\r\nHost: x\r\n\r\n`),
        fc
          .array(fc.tuple(line, line), { maxLength: 5 })
          .map(
            (hs) =>
              `GET /api/board HTTP/1.1\r\nHost: x\r\n${hs.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`,
          ),
        fc.constantFrom(
          `POST /api/report HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`,
          `POST /api/report HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
          `POST /api/report HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`,
          `POST /api/report HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`,
          `POST /api/report HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n`,
          `GET /api/board HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20 * 1024)}\r\n\r\n`,
          `GET /api/board HTTP/1.1\r\n${Array.from({ length: 3000 }, (_, i) => `X-${i}: v\r\n`).join('')}\r\n`,
          `GET /${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
          `GET /api/board HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\x00\r\n\r\n`,
          `GET /api/board HTTP/1.1\nHost: x\n\n`,
          `GET /api/board HTTP/1.1\r\n Host: x\r\n\r\n`,
          `GET http://evil.example/api/board HTTP/1.1\r\nHost: x\r\n\r\n`,
          `GET * HTTP/1.1\r\nHost: x\r\n\r\n`,
          `CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\n\r\n`,
          `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`,
        ),
        // WebSocket handshakes, good and bad, on the live route and elsewhere.
        upgradeHeads(
          ['/api/live', `/api/live?token=${TOKEN}`, '/api/board', '/nowhere'],
          ['websocket', 'WebSocket', 'h2c', ''],
          [null, 'a', 'a,,b', 'a, a', '@'],
        ),
      );
      await assertRawHeads(port, head, received, { numRuns: Math.ceil(RUNS / 10), ...SEED });
      expect(board.child.exitCode).toBeNull();
      expect((await http.call(`${board.url}/api/health`)).status).toBe(200);
    },
    fuzzTimeoutMs(RUNS),
  );

  it('left nothing behind: no secret in any answer, message, log line or data file; no error logged', () => {
    expect(board.output.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
    expectNoSecrets({
      secrets: SECRETS,
      recorders: [http, { bodies: client.seen }],
      texts: received,
      dirs: [dir.path],
    });
    // The counts go into docs/reliability.md.
    console.log(
      `board fuzz cases: ${JSON.stringify(counts)}; requests sent: ${client.sent}, ` +
        `retried on a fresh connection: ${client.retried}; statuses: ${JSON.stringify(client.statuses)}`,
    );
  });
});
