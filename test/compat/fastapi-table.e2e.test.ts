import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../../harness/processes.js';
import { BODY_ROWS, patternIssue, type Row, TOKEN } from '../helpers/fastapi-body-rows.js';
import { writeBoardConfig } from '../helpers/fleet.js';
import { rawRequest, requestBytes } from '../helpers/raw-http.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * What a FastAPI 0.14x / pydantic 2 service with the specification's signatures answers (behind
 * uvicorn with h11, on CPython 3.13+), row by row, and the board must answer the same: status,
 * the headers that matter and the body. Expectations were read from the FastAPI, Starlette,
 * pydantic-core and CPython sources (see docs/internals/decisions.md), never from the board.
 */

const REGISTRATION = 'compat-registration-0123456789';
const CODE_PATTERN = '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$';

const NOT_FOUND = { detail: 'Not Found' };
const NOT_ALLOWED = { detail: 'Method Not Allowed' };
const JSON_TYPE = { 'content-type': 'application/json' };

function limitIssue(type: string, msg: string, input: string, ctx?: Record<string, unknown>) {
  return {
    detail: [{ type, loc: ['query', 'limit'], msg, input, ...(ctx === undefined ? {} : { ctx }) }],
  };
}

const INT_PARSING = 'Input should be a valid integer, unable to parse string as an integer';

const ROWS: Record<string, Row> = {
  // Routing comes before validation and before authentication.
  'a %2F in a parameter is a separator: no route': {
    line: 'POST /api/do/a%2Fb/x/start',
    token: 'board',
    status: 404,
    expectBody: NOT_FOUND,
    expectHeaders: JSON_TYPE,
  },
  'an empty segment matches no parameter': {
    line: 'POST /api/do/dead/backup/',
    token: 'board',
    status: 404,
    expectBody: NOT_FOUND,
  },
  'an empty language code, without a token': {
    line: 'GET /api/language/',
    status: 404,
    expectBody: NOT_FOUND,
  },
  'a trailing slash is redirected (307), before the token': {
    line: 'POST /api/do/n/w/start/',
    status: 307,
    expectHeaders: { location: 'http://testserver/api/do/n/w/start', 'content-length': '0' },
    absentHeaders: ['content-type'],
    expectBody: '',
  },
  'an encoded trailing slash is redirected too': {
    line: 'POST /api/do/n/w/start%2F',
    token: 'board',
    status: 307,
    expectHeaders: { location: 'http://testserver/api/do/n/w/start' },
    expectBody: '',
  },
  'the redirect keeps the query': {
    line: 'GET /api/journal//?limit=5',
    status: 307,
    expectHeaders: { location: 'http://testserver/api/journal?limit=5' },
    expectBody: '',
  },
  // Deliberate difference (docs/internals/decisions.md): FastAPI would repeat the token in Location.
  'no redirect that would repeat ?token= in a response': {
    line: `GET /api/journal/?token=${TOKEN}`,
    status: 404,
    expectBody: NOT_FOUND,
  },
  'HEAD on a GET route is 405 with Allow: GET': {
    line: 'HEAD /api/board',
    token: 'board',
    status: 405,
    expectHeaders: { allow: 'GET' },
  },
  'a wrong method is 405 with Allow: GET only': {
    line: 'PUT /api/board',
    status: 405,
    expectHeaders: { allow: 'GET', ...JSON_TYPE },
    expectBody: NOT_ALLOWED,
  },
  'an unknown method on a route is 405': {
    line: 'FOO /api/board',
    token: 'board',
    status: 405,
    expectHeaders: { allow: 'GET' },
    expectBody: NOT_ALLOWED,
  },
  'an unknown method elsewhere is 404': {
    line: 'FOO /api/nothing',
    status: 404,
    expectBody: NOT_FOUND,
  },
  // pydantic's integer parsing.
  'limit=1.0 is 1': { line: 'GET /api/journal?limit=1.0', token: 'board', status: 200 },
  'limit=1_000 is 1000': { line: 'GET /api/journal?limit=1_000', token: 'board', status: 200 },
  'limit=+07 (a space, then 07) is 7': {
    line: 'GET /api/journal?limit=+07',
    token: 'board',
    status: 200,
  },
  'a leading space and underscores parse, then the bound fails': {
    line: 'GET /api/journal?limit=%203479_74',
    token: 'board',
    status: 422,
    expectBody: limitIssue(
      'less_than_equal',
      'Input should be less than or equal to 10000',
      ' 3479_74',
      { le: 10000 },
    ),
  },
  'limit=1e3 is no integer': {
    line: 'GET /api/journal?limit=1e3',
    token: 'board',
    status: 422,
    expectBody: limitIssue('int_parsing', INT_PARSING, '1e3'),
  },
  'limit=1__0 is no integer': {
    line: 'GET /api/journal?limit=1__0',
    token: 'board',
    status: 422,
    expectBody: limitIssue('int_parsing', INT_PARSING, '1__0'),
  },
  'a number of 4301 digits exceeds the maximum size': {
    line: `GET /api/journal?limit=${'9'.repeat(4301)}`,
    token: 'board',
    status: 422,
    expectBody: limitIssue(
      'int_parsing_size',
      'Unable to parse input string as an integer, exceeded maximum size',
      '9'.repeat(4301),
    ),
  },
  'a query is decoded as UTF-8 with replacement': {
    line: 'GET /api/journal?limit=%FF',
    token: 'board',
    status: 422,
    expectBody: limitIssue('int_parsing', INT_PARSING, '\ufffd'),
  },
  'a + in the query is a space': {
    line: 'GET /api/journal?limit=1+2',
    token: 'board',
    status: 422,
    expectBody: limitIssue('int_parsing', INT_PARSING, '1 2'),
  },
  // The path, decoded as uvicorn decodes it.
  'a path parameter of 501 characters is validated (422), not 414': {
    line: `GET /api/language/${'a'.repeat(501)}`,
    token: 'board',
    status: 422,
    expectBody: patternIssue('code', 'a'.repeat(501), CODE_PATTERN),
  },
  'a path that is no UTF-8 is decoded with replacement': {
    line: 'GET /api/language/%FF',
    token: 'board',
    status: 422,
    expectBody: patternIssue('code', '\ufffd', CODE_PATTERN),
  },
  'a # in the path is part of it: no route': {
    line: 'GET /api/board#x',
    token: 'board',
    status: 404,
    expectBody: NOT_FOUND,
  },
  'a # in a parameter is part of it': {
    line: 'GET /api/language/en#frag',
    token: 'board',
    status: 422,
    expectBody: patternIssue('code', 'en#frag', CODE_PATTERN),
  },
};

describe('the board answers as a FastAPI service would', () => {
  const dir = tempDir();
  let board: RunningProgram;

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'compat', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        machines: [{ name: 'dead', url: 'http://127.0.0.1:9', key: 'compat-key-0123456789abcdef' }],
      }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  for (const [name, row] of Object.entries({ ...ROWS, ...BODY_ROWS })) {
    it(`${row.line.slice(0, 60)} — ${name}`, async () => {
      const headers: Record<string, string> = { Host: 'testserver', ...row.headers };
      if (row.token !== undefined) {
        headers.Authorization = `Bearer ${row.token === 'board' ? TOKEN : REGISTRATION}`;
      }
      const answer = await rawRequest(
        board.url,
        requestBytes(`${row.line} HTTP/1.1`, headers, row.body),
      );
      expect(answer.status, answer.body).toBe(row.status);
      for (const [header, value] of Object.entries(row.expectHeaders ?? {})) {
        expect(answer.headers[header], header).toBe(value);
      }
      for (const header of row.absentHeaders ?? []) expect(answer.headers[header]).toBeUndefined();
      if (typeof row.expectBody === 'string') expect(answer.body).toBe(row.expectBody);
      else if (row.expectBody !== undefined)
        expect(JSON.parse(answer.body)).toEqual(row.expectBody);
      if (row.status === 200 && row.line.startsWith('GET /api/journal')) {
        const limit = Number(/limit=([^&]*)/.exec(row.line)?.[1]?.replace('_', '') ?? 200);
        expect(
          (JSON.parse(answer.body) as { entries: unknown[] }).entries.length,
        ).toBeLessThanOrEqual(limit);
      }
    });
  }
});
