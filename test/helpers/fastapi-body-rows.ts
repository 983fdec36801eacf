// The FastAPI table's rows on request bodies and the bearer header, and the shape of a row.
export const TOKEN = 'compat-board-token-0123456789';
const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

export interface Row {
  /** The request line, e.g. `GET /api/board`. */
  line: string;
  /** Which token (in `Authorization: Bearer`) it presents; none by default. */
  token?: 'board' | 'registration';
  headers?: Record<string, string>;
  body?: Buffer | string;
  status: number;
  /** Headers that must be present with exactly these values (names in lower case). */
  expectHeaders?: Record<string, string>;
  /** Headers that must be absent. */
  absentHeaders?: string[];
  /** The JSON body, or the exact text when a string. */
  expectBody?: unknown;
}

function jsonInvalid(pos: number, error: string) {
  return {
    detail: [
      {
        type: 'json_invalid',
        loc: ['body', pos],
        msg: 'JSON decode error',
        input: {},
        ctx: { error },
      },
    ],
  };
}

export function patternIssue(name: string, input: string, pattern: string) {
  return {
    detail: [
      {
        type: 'string_pattern_mismatch',
        loc: ['path', name],
        msg: `String should match pattern '${pattern}'`,
        input,
        ctx: { pattern },
      },
    ],
  };
}

const REPORT = '{"name":"lab1","location":"http://lab1:8701"}';
const report = (
  body: Buffer | string,
  type?: string,
): Pick<Row, 'line' | 'token' | 'body' | 'headers'> => ({
  line: 'POST /api/report',
  token: 'registration',
  body,
  headers: type === undefined ? {} : { 'Content-Type': type },
});
const asText = {
  detail: [
    {
      type: 'model_attributes_type',
      loc: ['body'],
      msg: 'Input should be a valid dictionary or object to extract fields from',
      input: REPORT,
    },
  ],
};

/** The rows after the request line's: bodies, path errors beside a body, and the bearer header. */
export const BODY_ROWS: Record<string, Row> = {
  // Bodies, read as Python's json.loads reads bytes.
  'a body with a UTF-8 BOM is accepted': {
    ...report(`\ufeff${REPORT}`, 'application/json'),
    status: 200,
    expectBody: { ok: true, actions: [] },
  },
  'application/*+json is JSON': {
    ...report(REPORT, 'application/vnd.panoptes+json; charset=utf-8'),
    status: 200,
    expectBody: { ok: true, actions: [] },
  },
  'no Content-Type: the body is text': { ...report(REPORT), status: 422, expectBody: asText },
  'an empty Content-Type: the body is text': {
    ...report(REPORT, ''),
    status: 422,
    expectBody: asText,
  },
  'application/json-patch is not JSON': {
    ...report(REPORT, 'application/json-patch'),
    status: 422,
    expectBody: asText,
  },
  'whitespace only is invalid JSON': {
    ...report('   ', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(3, 'Expecting value'),
  },
  'null is a missing body': {
    ...report('null', 'application/json'),
    status: 422,
    expectBody: {
      detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    },
  },
  'json_invalid: property name': {
    ...report('{name:1}', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(1, 'Expecting property name enclosed in double quotes'),
  },
  'json_invalid: unterminated string': {
    ...report('{"a":"x', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(5, 'Unterminated string starting at'),
  },
  'json_invalid: escape': {
    ...report('{"a":"\\q"}', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(6, 'Invalid \\escape'),
  },
  'json_invalid: \\u escape': {
    ...report('{"a":"\\u12"}', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(7, 'Invalid \\uXXXX escape'),
  },
  'json_invalid: value (position in code points)': {
    ...report('{"é": tru}', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(6, 'Expecting value'),
  },
  'json_invalid: colon': {
    ...report('{"a" 1}', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(5, "Expecting ':' delimiter"),
  },
  'json_invalid: comma': {
    ...report('[1 2]', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(3, "Expecting ',' delimiter"),
  },
  'json_invalid: trailing comma (CPython 3.13)': {
    ...report('{"name": 1,}', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(10, 'Illegal trailing comma before end of object'),
  },
  'json_invalid: control character': {
    ...report('"a\tb"', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(2, 'Invalid control character at'),
  },
  'json_invalid: extra data': {
    ...report('{"a":1} x', 'application/json'),
    status: 422,
    expectBody: jsonInvalid(8, 'Extra data'),
  },
  'a body that is not UTF-8 is a 400': {
    ...report(
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
      'application/json',
    ),
    status: 400,
    expectBody: { detail: 'There was an error parsing the body' },
  },
  'a route without a body reads none: path errors only': {
    line: 'POST /api/do/dead/backup/restart',
    token: 'board',
    headers: { 'Content-Type': 'application/json' },
    body: '{bad',
    status: 422,
    expectBody: {
      detail: [
        {
          type: 'enum',
          loc: ['path', 'action'],
          msg: "Input should be 'start' or 'stop'",
          input: 'restart',
          ctx: { expected: "'start' or 'stop'" },
        },
      ],
    },
  },
  'path errors are listed with their pattern': {
    line: 'DELETE /api/machines/-x',
    token: 'board',
    status: 422,
    expectBody: patternIssue('name', '-x', NAME_PATTERN),
  },
  // Authentication as HTTPBearer reads the header.
  'Bearer<TAB>token is no bearer token': {
    line: 'GET /api/board',
    headers: { Authorization: `Bearer\t${TOKEN}` },
    status: 401,
    expectHeaders: { 'www-authenticate': 'Bearer' },
    expectBody: { detail: 'Not authenticated' },
  },
  'the scheme is case-insensitive': {
    line: 'GET /api/journal?limit=1',
    headers: { Authorization: `bEaReR ${TOKEN}` },
    status: 200,
  },
};
