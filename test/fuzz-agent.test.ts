import { createServer, type Server } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent } from '../harness/processes.js';
import { Recorder, writeAgentConfig } from './helpers/fleet.js';
import { anyPath, segment } from './helpers/fuzz-arbitraries.js';
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
} from './helpers/fuzz-requests.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const OPERATOR = 'fuzz-operator-token-6c8e0a2b4d6f';
const BOARD_KEY = 'fuzz-agent-board-key-9d1f3b5c7e0a';
const SECRETS = [OPERATOR, BOARD_KEY];

const RUNS = fuzzRuns(2000);
const SEED = fuzzSeed();

const validBell = fc.record({
  session: fc.string({ minLength: 1, maxLength: 40 }),
  why: fc.constantFrom('finished', 'attention', 'error'),
  text: fc.string({ maxLength: 200 }),
});

const hostileBell = fc.record(
  {
    session: fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.integer(),
      fc.constant(null),
      fc.constant(''),
      fc.constant('s'.repeat(201)),
    ),
    why: fc.oneof(fc.constantFrom('finished', 'attention', 'error', 'FINISHED', ''), fc.string()),
    text: fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constant('t'.repeat(4001)),
      fc.constant('<script>alert(1)</script>'),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    extra: fc.jsonValue({ maxDepth: 3 }),
  },
  { requiredKeys: [] },
);

const bell = fc.oneof({ weight: 3, arbitrary: validBell }, { weight: 2, arbitrary: hostileBell });

/** Checks handed by the board: well-formed ones (to a closed port, so running them costs nothing), and hostile shapes. */
const handedCheck = fc.record({
  name: fc.oneof(fc.constantFrom('web', 'db'), fc.string({ maxLength: 70 })),
  type: fc.oneof(fc.constantFrom('tcp', 'http'), fc.string({ maxLength: 8 })),
  target: fc.constantFrom('127.0.0.1:1', 'http://127.0.0.1:1/', ''),
  interval_s: fc.oneof(fc.constant(60), fc.integer()),
  timeout_s: fc.oneof(fc.constant(1), fc.double()),
  conditions: fc.array(
    fc.oneof(fc.constantFrom('[CONNECTED] == true', '[STATUS] =='), fc.string({ maxLength: 50 })),
    { maxLength: 3 },
  ),
});
const handed = fc.oneof(
  fc.record({
    version: fc.string({ maxLength: 30 }),
    checks: fc.array(handedCheck, { maxLength: 3 }),
  }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Every endpoint of the agent (and a random path anywhere) as a request generator. */
const ENDPOINTS: Record<string, fc.Arbitrary<FuzzRequest>> = {
  'GET /api/health': requestTo('GET', fc.constant('/api/health'), null, 'health'),
  'GET /api/overview': requestTo('GET', fc.constant('/api/overview'), null, 'overview'),
  'POST /api/bell': requestTo('POST', fc.constant('/api/bell'), bell, 'bell'),
  'POST /api/do/{what}/{action}': requestTo(
    'POST',
    fc
      .tuple(
        fc.oneof(fc.constantFrom('backup', 'backup', 'worker', 'nothing'), segment),
        fc.oneof(fc.constantFrom('start', 'stop'), segment),
      )
      .map(([w, a]) => `/api/do/${w}/${a}`),
    null,
    'do',
  ),
  'POST /api/update': requestTo('POST', fc.constant('/api/update'), null, 'update'),
  'PUT /api/checks': requestTo('PUT', fc.constant('/api/checks'), handed, 'checks'),
  'GET /api/openapi.json': requestTo('GET', fc.constant('/api/openapi.json'), null, 'openapi'),
  'any /proxy/…': fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
      path: fc.array(segment, { maxLength: 4 }).map((s) => `/proxy/${s.join('/')}`),
    })
    .chain((r) => requestTo(r.method, fc.constant(r.path), null, 'proxy')),
  'any path': fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
      path: anyPath,
    })
    .chain((r) => requestTo(r.method, fc.constant(r.path), null, 'anywhere')),
};

describe('fuzzing every endpoint of the agent', () => {
  const dir = tempDir('panoptes-fuzz-agent-');
  const http = new Recorder();
  const received: string[] = [];
  let agent: RunningProgram;
  let upstream: Server;
  let client: FuzzClient;
  const upstreamSaw: string[] = [];

  beforeAll(async () => {
    // The operator's service behind /proxy/: answers every request 200, and keeps what it was
    // sent, to check that no credential is passed on to it.
    upstream = createServer((req, res) => {
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
      });
      req.on('end', () => {
        upstreamSaw.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ upstream: true, method: req.method, size }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    agent = await startAgent(
      writeAgentConfig(dir, 'a', {
        name: 'fuzzed',
        token: OPERATOR,
        board_key: BOARD_KEY,
        data_dir: `${dir.path}/agent-data`,
        proxy: `http://127.0.0.1:${address.port}`,
        services: {
          backup: { start: ['true'], stop: ['true'], status: ['true'], board: ['start'] },
          worker: { run: ['sleep', '600'], stop_grace: 1, board: ['start', 'stop'] },
        },
      }),
      { env: { PANOPTES_LOG_LEVEL: 'debug' } },
    );
    client = new FuzzClient(agent.url, {
      main: OPERATOR,
      second: BOARD_KEY,
      wrong: 'fuzz-wrong-token-000000000000',
    });
  });

  afterAll(async () => {
    await client?.close();
    await agent?.stop();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
    dir.cleanup();
  });

  for (const [endpoint, arbitrary] of Object.entries(ENDPOINTS)) {
    it(
      `${endpoint}: never a 5xx or a cut connection, 4xx always FastAPI-shaped, no secret (${RUNS} cases)`,
      async () => {
        await assertAnswersWell(client, arbitrary, SECRETS, { numRuns: RUNS, ...SEED });
        expect(agent.child.exitCode).toBeNull();
        expect((await http.call(`${agent.url}/api/health`)).status).toBe(200);
        const kind =
          describeRequest(fc.sample(arbitrary, { numRuns: 1, seed: 1 })[0] as FuzzRequest).split(
            ':',
          )[0] ?? '';
        const ok = Object.keys(client.statuses[kind] ?? {}).filter((s) => s.startsWith('2'));
        // Run from a clone's dist, the agent never updates itself: POST /api/update is always 409
        // here (test/agent-update.e2e.test.ts has its 202, from the one-file agent).
        if (RUNS >= 500 && kind !== 'update') expect(ok.length).toBeGreaterThan(0);
      },
      fuzzTimeoutMs(RUNS),
    );
  }

  it(
    `raw bytes: malformed request heads are answered 4xx FastAPI-shaped or closed (${Math.ceil(RUNS / 10)} cases)`,
    async () => {
      const port = Number(new URL(agent.url).port);
      const line = fc.string({ unit: 'binary-ascii', maxLength: 60 });
      const head = fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 400 }),
        fc
          .tuple(
            fc.constantFrom('GET', 'POST', 'FOO', 'get', ''),
            fc.constantFrom('/api/overview', '/api/bell', '/proxy/x', '/api/do/backup/start'),
            line,
            fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', ''),
          )
          .map(([m, p, q, v]) => `${m} ${p}${q} ${v}\r\nHost: x\r\n\r\n`),
        fc
          .array(fc.tuple(line, line), { maxLength: 5 })
          .map(
            (hs) =>
              `GET /proxy/x HTTP/1.1\r\nHost: x\r\n${hs.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`,
          ),
        fc.constantFrom(
          'POST /proxy/x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
          'POST /proxy/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
          'POST /api/bell HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n',
          `GET /proxy/${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
          'GET /proxy/x HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
          'GET /proxy/x HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: x\r\nSec-WebSocket-Version: 13\r\n\r\n',
        ),
        upgradeHeads(
          ['/proxy/ws', '/api/overview', '/nowhere'],
          ['websocket', 'h2c', ''],
          [null, 'a', 'a,,b', 'a, a'],
        ),
      );
      await assertRawHeads(port, head, received, { numRuns: Math.ceil(RUNS / 10), ...SEED });
      expect(agent.child.exitCode).toBeNull();
      expect((await http.call(`${agent.url}/api/health`)).status).toBe(200);
    },
    fuzzTimeoutMs(RUNS),
  );

  it('left nothing behind: no secret in any answer, log line, data file or upstream request; no error logged', () => {
    expect(agent.output.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
    expectNoSecrets({
      secrets: SECRETS,
      recorders: [http, { bodies: client.seen }],
      // The proxy never passes a credential on to the operator's service.
      texts: [...received, ...upstreamSaw],
      dirs: [dir.path],
    });
    console.log(
      `agent fuzz: requests sent: ${client.sent}, retried on a fresh connection: ${client.retried}; ` +
        `statuses: ${JSON.stringify(client.statuses)}`,
    );
  });
});
