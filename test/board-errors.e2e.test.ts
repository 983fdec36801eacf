import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, runToExit, startBoard } from '../harness/processes.js';
import { Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'errors-board-token-0123456789';
const REGISTRATION = 'errors-registration-0123456789';

describe('board errors are FastAPI-shaped', () => {
  const dir = tempDir();
  const http = new Recorder();
  let board: RunningProgram;
  const post = (path: string, body: string | undefined, type = 'application/json') =>
    http.call(`${board.url}${path}`, {
      method: 'POST',
      token: REGISTRATION,
      ...(body === undefined ? {} : { body }),
      headers: type === '' ? {} : { 'content-type': type },
    });

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', { board_token: TOKEN, registration_token: REGISTRATION }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it('422 for query parameters: int_parsing, greater_than_equal, less_than_equal', async () => {
    const get = async (q: string) =>
      (await http.call(`${board.url}/api/journal?${q}`, { token: TOKEN })).json;
    expect(await get('limit=abc')).toEqual({
      detail: [
        {
          type: 'int_parsing',
          loc: ['query', 'limit'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: 'abc',
        },
      ],
    });
    expect(await get('limit=0')).toEqual({
      detail: [
        {
          type: 'greater_than_equal',
          loc: ['query', 'limit'],
          msg: 'Input should be greater than or equal to 1',
          input: '0',
          ctx: { ge: 1 },
        },
      ],
    });
    expect(await get('limit=10001')).toEqual({
      detail: [
        {
          type: 'less_than_equal',
          loc: ['query', 'limit'],
          msg: 'Input should be less than or equal to 10000',
          input: '10001',
          ctx: { le: 10000 },
        },
      ],
    });
    expect((await http.call(`${board.url}/api/journal?limit=7`, { token: TOKEN })).status).toBe(
      200,
    );
  });

  it('422 for path parameters, every failing one at once: string_pattern_mismatch and enum', async () => {
    const reply = await http.call(`${board.url}/api/do/-bad/ok/restart`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(reply.status).toBe(422);
    expect(reply.json).toEqual({
      detail: [
        {
          type: 'string_pattern_mismatch',
          loc: ['path', 'name'],
          msg: "String should match pattern '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'",
          input: '-bad',
          ctx: { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
        },
        {
          type: 'enum',
          loc: ['path', 'action'],
          msg: "Input should be 'start' or 'stop'",
          input: 'restart',
          ctx: { expected: "'start' or 'stop'" },
        },
      ],
    });
    const code = await http.call(`${board.url}/api/language/EN_us`, { token: TOKEN });
    expect(code.status).toBe(422);
    expect((code.json as { detail: { loc: unknown }[] }).detail[0]?.loc).toEqual(['path', 'code']);
  });

  it('422 for bodies: json_invalid, model_attributes_type, missing, string_type', async () => {
    expect((await post('/api/report', '{"name": ')).json).toEqual({
      detail: [
        {
          type: 'json_invalid',
          loc: ['body', 9],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: 'Expecting value' },
        },
      ],
    });
    expect((await post('/api/report', '[1,2]')).json).toEqual({
      detail: [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: [1, 2],
        },
      ],
    });
    expect((await post('/api/report', 'name=x', 'text/plain')).json).toMatchObject({
      detail: [{ type: 'model_attributes_type', loc: ['body'], input: 'name=x' }],
    });
    expect((await post('/api/report', '{"location": 5}')).json).toEqual({
      detail: [
        { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: { location: 5 } },
        {
          type: 'string_type',
          loc: ['body', 'location'],
          msg: 'Input should be a valid string',
          input: 5,
        },
      ],
    });
    expect((await post('/api/report', undefined, '')).json).toEqual({
      detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    });
  });

  it('404, 405 and 413 with their documented bodies', async () => {
    const notFound = await http.call(`${board.url}/api/nothing-here`);
    expect(notFound).toMatchObject({ status: 404, json: { detail: 'Not Found' } });
    const wrongMethod = await http.call(`${board.url}/api/board`, { method: 'PUT', token: TOKEN });
    expect(wrongMethod).toMatchObject({ status: 405, json: { detail: 'Method Not Allowed' } });
    expect(wrongMethod.headers.get('allow')).toContain('GET');
    const big = await post(
      '/api/report',
      JSON.stringify({ name: 'x', location: 'http://x', pad: 'y'.repeat(1_100_000) }),
    );
    expect(big.status).toBe(413);
    expect(big.json).toEqual({ detail: expect.stringContaining('too large') });
  });

  it('serves a valid OpenAPI 3.1.0 document to the board token only', async () => {
    expect((await http.call(`${board.url}/api/openapi.json`)).status).toBe(401);
    expect((await http.call(`${board.url}/api/openapi.json`, { token: REGISTRATION })).status).toBe(
      403,
    );
    const doc = (await http.call(`${board.url}/api/openapi.json`, { token: TOKEN })).json as {
      openapi: string;
      info: { title: string; version: string };
      paths: Record<
        string,
        Record<string, { responses: Record<string, unknown>; security?: unknown[] }>
      >;
      components: {
        schemas: Record<string, unknown>;
        securitySchemes: Record<string, { type: string; in?: string }>;
      };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Panoptes', version: '0.1.0' });
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/agent/SHA256SUMS',
      '/agent/SHA256SUMS.sig',
      '/agent/update-key',
      '/agent/{file}',
      '/api/board',
      '/api/checks',
      '/api/checks/mine',
      '/api/checks/{name}/history',
      '/api/cluster',
      '/api/do/{name}/{what}/{action}',
      '/api/enrollments',
      '/api/groups',
      '/api/health',
      '/api/journal',
      '/api/language/{code}',
      '/api/languages',
      '/api/machines/update',
      '/api/machines/{name}',
      '/api/machines/{name}/enroll',
      '/api/machines/{name}/events',
      '/api/machines/{name}/history',
      '/api/machines/{name}/labels',
      '/api/machines/{name}/silence',
      '/api/machines/{name}/update',
      '/api/me',
      '/api/notify',
      '/api/notify/test',
      '/api/openapi.json',
      '/api/people',
      '/api/people/{name}',
      '/api/people/{name}/link',
      '/api/push/key',
      '/api/push/subscriptions',
      '/api/push/subscriptions/{id}',
      '/api/push/subscriptions/{id}/renew',
      '/api/push/{token}',
      '/api/report',
      '/api/sessions',
      '/api/sessions/{machine}/ack',
      '/api/sessions/{machine}/{session}/ack',
      '/api/silences',
      '/api/silences/{id}',
      '/api/tokens',
      '/api/tokens/{id}',
      '/api/uptime',
      '/auth/logout',
      '/auth/methods',
      '/auth/passkey',
      '/auth/passkey/options',
      '/auth/password',
      '/auth/signup',
      '/auth/signup/passkey',
      '/auth/signup/passkey/options',
      '/auth/signup/password',
      '/metrics',
    ]);
    expect(doc.components.schemas).toHaveProperty('HTTPValidationError');
    expect(doc.components.schemas).toHaveProperty('ValidationError');
    expect(doc.components.securitySchemes.HTTPBearer?.type).toBe('http');
    expect(doc.components.securitySchemes.APIKeyQuery).toMatchObject({
      type: 'apiKey',
      in: 'query',
    });
    for (const path of [
      '/api/journal',
      '/api/do/{name}/{what}/{action}',
      '/api/report',
      '/api/machines/{name}',
      '/api/language/{code}',
    ]) {
      const op = Object.values(doc.paths[path] ?? {})[0];
      expect(op?.responses).toHaveProperty('422');
    }
    // Open: FastAPI writes no `security` there (and none at the top level).
    expect(doc.paths['/api/health']?.get?.security).toBeUndefined();
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(JSON.stringify(doc)).not.toContain(TOKEN);
  });

  it('a bad config file exits non-zero naming the file, the field and the problem', async () => {
    const bad = writeBoardConfig(dir, 'bad', { board_token: 'short', sweep_intervall: 1 });
    const { code, output } = await runToExit('board', ['--config', bad]);
    expect(code).toBe(2);
    expect(output).toContain(`${bad}/board.yaml`);
    expect(output).toContain('sweep_intervall: unknown key');
    expect(output).toContain('board_token: must be at least 16 characters long');
    expect(output).not.toContain('short');
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION], dirs: [dir.path] }));
});
