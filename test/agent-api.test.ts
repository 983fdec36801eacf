import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent } from '../harness/processes.js';
import {
  agentYaml,
  BOARD_KEY,
  eventually,
  expectNoSecrets,
  Http,
  OPERATOR,
  SECRETS,
} from './helpers/agent-fixtures.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const dir = tempDir('panoptes-agent-api-');
let agent: RunningProgram;
let http: Http;

beforeAll(async () => {
  const config = dir.write(
    'agent.yaml',
    agentYaml(
      `data_dir: ${dir.path}/data\nservices:\n` +
        '  backup:\n    start: ["true"]\n    stop: ["true"]\n    status: ["true"]\n    board: [start]\n' +
        '  worker:\n    run: [sleep, "600"]\n',
    ),
  );
  agent = await startAgent(config);
  http = new Http(agent.url);
});

afterAll(async () => {
  await agent?.stop();
  dir.cleanup();
});

describe('agent: authentication', () => {
  it('GET /api/health is open and says only that it is up', async () => {
    const r = await http.get('/api/health');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: 'ok', version: '0.1.0' });
  });

  it('401 with WWW-Authenticate: Bearer without a token or with a wrong one', async () => {
    for (const token of [undefined, 'wrong-token-0123456789', `${OPERATOR}x`]) {
      for (const path of ['/api/overview', '/api/openapi.json']) {
        const r = await http.get(path, token === undefined ? {} : { token });
        expect(r.status).toBe(401);
        expect(r.json).toEqual({ detail: 'Not authenticated' });
        expect(r.headers.get('www-authenticate')).toBe('Bearer');
      }
      const bell = await http.post('/api/bell', {
        ...(token === undefined ? {} : { token }),
        body: { session: 's', why: 'finished', text: '' },
      });
      expect(bell.status).toBe(401);
      const act = await http.post('/api/do/backup/start', token === undefined ? {} : { token });
      expect(act.status).toBe(401);
    }
  });

  it('the token opens /api in the header and as ?token=', async () => {
    expect((await http.get('/api/overview', { token: OPERATOR })).status).toBe(200);
    expect((await http.get('/api/overview', { token: OPERATOR, inQuery: true })).status).toBe(200);
    expect((await http.get('/api/openapi.json', { token: OPERATOR, inQuery: true })).status).toBe(
      200,
    );
  });

  it('the board key opens the overview and /api/do, and nothing else', async () => {
    expect((await http.get('/api/overview', { token: BOARD_KEY })).status).toBe(200);
    expect((await http.get('/api/overview', { token: BOARD_KEY, inQuery: true })).status).toBe(200);
    expect((await http.post('/api/do/backup/start', { token: BOARD_KEY })).status).toBe(200);
    const openapi = await http.get('/api/openapi.json', { token: BOARD_KEY });
    expect(openapi.status).toBe(403);
    expect(openapi.json.detail).toMatch(/board key/);
    const bell = await http.post('/api/bell', {
      token: BOARD_KEY,
      body: { session: 's', why: 'finished', text: '' },
    });
    expect(bell.status).toBe(403);
  });

  it('unknown paths are 404 and wrong methods 405, FastAPI-shaped, without a token', async () => {
    const missing = await http.get('/api/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ detail: 'Not Found' });
    const wrong = await http.call('DELETE', '/api/overview');
    expect(wrong.status).toBe(405);
    expect(wrong.json).toEqual({ detail: 'Method Not Allowed' });
  });
});

describe('agent: GET /api/overview', () => {
  it('describes the machine from the OS', async () => {
    const r = await http.get('/api/overview', { token: OPERATOR });
    const o = r.json;
    expect(o).toMatchObject({
      name: 'web1',
      hostname: hostname(),
      platform: process.platform,
      arch: process.arch,
      version: '0.1.0',
    });
    expect(o.uptime_s).toBeGreaterThan(0);
    expect(o.load).toHaveLength(3);
    expect(o.cpus).toBeGreaterThan(0);
    expect(o.cpu_use).toBeGreaterThanOrEqual(0);
    expect(o.cpu_use).toBeLessThanOrEqual(1);
    expect(o.memory.total).toBeGreaterThan(0);
    expect(o.memory.used + o.memory.free).toBe(o.memory.total);
    expect(o.disks[0]).toMatchObject({ path: '/' });
    expect(o.disks[0].total).toBeGreaterThan(0);
    expect(o.disks[0].free).toBeLessThanOrEqual(o.disks[0].total);
    expect(Math.abs(Date.parse(o.time) - Date.now())).toBeLessThan(60_000);
  });

  it('lists the published services with their state, their actions and what the board may do', async () => {
    // The first status check runs at start; wait for its answer rather than assume its speed.
    const services = await eventually(async () => {
      const r = await http.get('/api/overview', { token: BOARD_KEY });
      return r.json.services[0].state === 'unknown' ? undefined : r.json.services;
    }, 'the first status check');
    expect(services).toEqual([
      {
        name: 'backup',
        kind: 'command',
        state: 'running',
        actions: ['start', 'stop'],
        board: ['start'],
        busy: false,
        // The default 60 s time-out and the 2 s grace after SIGTERM.
        timeout_s: 62,
      },
      {
        name: 'worker',
        kind: 'process',
        state: 'stopped',
        actions: ['start', 'stop'],
        board: [],
        busy: false,
        // The default 10 s stop grace and 2 s for the kill.
        timeout_s: 12,
        last_exit: null,
      },
    ]);
  });
});

describe('agent: GET /api/openapi.json', () => {
  it('is OpenAPI 3.1.0 of every endpoint, with 422 responses and both token forms', async () => {
    const r = await http.get('/api/openapi.json', { token: OPERATOR });
    expect(r.status).toBe(200);
    const doc = r.json;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Panoptes', version: '0.1.0' });
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/bell',
      '/api/checks',
      '/api/do/{what}/{action}',
      '/api/health',
      '/api/openapi.json',
      '/api/overview',
      '/api/update',
    ]);
    expect(doc.paths['/api/do/{what}/{action}'].post.responses['422']).toBeDefined();
    expect(doc.paths['/api/bell'].post.responses['422']).toBeDefined();
    // FastAPI writes no `security` on an open operation (and none at the top level).
    expect(doc.paths['/api/health'].get.security).toBeUndefined();
    expect(doc.components.schemas.HTTPValidationError).toBeDefined();
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'APIKeyQuery',
      'HTTPBearer',
    ]);
  });
});

describe('agent: validation errors are FastAPI-shaped', () => {
  it('POST /api/do with a bad action and a bad name', async () => {
    const r = await http.post('/api/do/-bad/restart', { token: OPERATOR });
    expect(r.status).toBe(422);
    expect(r.json.detail.map((d: { loc: string[]; type: string }) => [d.loc, d.type])).toEqual([
      [['path', 'what'], 'string_pattern_mismatch'],
      [['path', 'action'], 'enum'],
    ]);
  });

  it('POST /api/bell with bad JSON', async () => {
    const r = await http.post('/api/bell', {
      token: OPERATOR,
      raw: '{"session":',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body', 11] });
  });
});

describe('agent: secrets', () => {
  it('no token or key in any answer or log line; ?token= is redacted in the log', async () => {
    await http.get('/api/overview', { token: OPERATOR, inQuery: true });
    // The agent logs a request when its answer is sent; the line reaches this test through a
    // pipe, possibly after the answer.
    await eventually(
      async () => (agent.output.join('\n').includes('token=[redacted]') ? true : undefined),
      'the request log line',
    );
    expectNoSecrets([...http.seen, ...agent.output]);
  });
});

// Every answer, message, log line and data file of this file's tests, searched for every secret.
scanForSecretsAfterAll(() => ({ secrets: SECRETS, dirs: [dir.path] }));
