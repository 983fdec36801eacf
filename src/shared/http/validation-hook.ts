import { isAscii } from 'node:buffer';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tooDeepAt } from '../json-depth.js';
import { noteJsonSource } from '../json-members.js';
import type { TSchema } from '../typebox.js';
import { Compile, type Validator } from '../typebox.js';
import { errors } from './errors.js';
import { withoutFreeTextPatterns } from './printable-check.js';
import { check, checkParams, type ValidationIssue } from './pydantic.js';
import {
  decodeJsonBytes,
  type PythonJsonError,
  pythonJsonError,
  TooManyDigits,
} from './python-json.js';

/** The raw JSON text of a body that failed to parse, and where. */
export class JsonInvalid extends Error {
  readonly position: number;
  readonly reason: string;
  constructor(position: number, reason: string) {
    super('JSON decode error');
    this.name = 'JsonInvalid';
    this.position = position;
    this.reason = reason;
  }
}

interface RouteSchemas {
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
}

/**
 * A preValidation hook that checks path, query and body together and answers 422 with every
 * problem at once, exactly as FastAPI does (Fastify would stop at the first failing part).
 */
export async function validateRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const schema = request.routeOptions.schema as RouteSchemas | undefined;
  if (schema === undefined) return;
  const issues: ValidationIssue[] = [];
  let params: Record<string, unknown> | undefined;
  let query: Record<string, unknown> | undefined;
  let body: unknown;
  if (schema.params) {
    params = checkParams(schema.params, request.params as Record<string, unknown>, 'path', issues);
  }
  if (schema.querystring) {
    query = checkParams(
      schema.querystring,
      request.query as Record<string, unknown>,
      'query',
      issues,
    );
  }
  if (schema.body) body = checkBody(schema.body, request.body, plainBodies.has(request), issues);
  if (issues.length > 0) {
    await reply.code(422).send({ detail: issues });
    return;
  }
  if (params) request.params = params;
  if (query) request.query = query;
  if (schema.body) request.body = body;
}

/**
 * Bodies whose JSON text is plain ASCII with no \\u or \\r escape: in them every string counts the
 * same in graphemes (TypeBox's maxLength) and in code points (pydantic's).
 */
const plainBodies = new WeakSet<object>();

/** Python's int() refuses integers of more digits than this. */
const DIGITS_MAX = 4300;
const BACKSLASH = 0x5c;

/** Notes that the request's body is plain (called by the JSON body parser, once parsed). */
export function notePlainBody(request: object, bytes: Buffer): void {
  if (isPlainBody(bytes)) plainBodies.add(request);
}

/** Whether a parsed JSON body's text is plain (see plainBodies). */
export function isPlainBody(bytes: Buffer): boolean {
  // ASCII only (JSON text that parsed has no raw control characters in its strings), and no
  // escape that makes a character a grapheme would count differently. Native scans.
  // Most bodies have no backslash at all: one byte search then spares the two string searches.
  if (!isAscii(bytes)) return false;
  if (bytes.indexOf(BACKSLASH) < 0) return true;
  return !bytes.includes('\\u') && !bytes.includes('\\r');
}

/**
 * The body part of validateRequest: the body as the route takes it, or FastAPI's issues pushed
 * onto `issues`. `plain`: the body's text is plain (isPlainBody), so the compiled check may
 * accept it; `printable`: every string in it is printable ASCII (isPrintableText), so the
 * compiled check may skip the free-text patterns, which such strings all match.
 */
export function checkBody(
  schema: TSchema,
  body: unknown,
  plain: boolean,
  issues: ValidationIssue[],
  printable = false,
): unknown {
  // No body, an empty one, or JSON `null`: FastAPI has no value, so the body is missing.
  if (body === undefined || body === null) {
    issues.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null });
    return undefined;
  }
  // The compiled check accepted it, so the 422 checker would too (see fastCheck).
  if (plain && (printable ? printableCheck(schema) : fastCheck(schema))?.Check(body)) return body;
  return check(schema, body, ['body'], issues, false);
}

const compiled = new WeakMap<TSchema, Validator | null>();

/**
 * A compiled TypeBox check of a body schema, the fast path for the valid bodies that are most
 * of the traffic (a report is checked thousands of times a second). It accepts nothing the
 * pydantic-style checker refuses: it is as strict or stricter on every keyword the schemas use,
 * string lengths agree on plain text (see plainBodies), and a schema with a `default` (which
 * the checker fills in) gets no fast path. A body it refuses goes to the checker, which says why.
 */
export function fastCheck(schema: TSchema): Validator | null {
  let v = compiled.get(schema);
  if (v === undefined) {
    v = JSON.stringify(schema).includes('"default"') ? null : Compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

const printableCompiled = new WeakMap<TSchema, Validator | null>();

/**
 * fastCheck without the free-text patterns, for bodies of printable text only: a 5 KB report
 * has ~100 strings, and a pattern test for each was three quarters of its compiled check.
 */
function printableCheck(schema: TSchema): Validator | null {
  let v = printableCompiled.get(schema);
  if (v === undefined) {
    v = fastCheck(schema) === null ? null : Compile(withoutFreeTextPatterns(schema));
    printableCompiled.set(schema, v);
  }
  return v;
}

/** The 422 body FastAPI gives for a body that is not valid JSON. */
export function jsonInvalidBody(error: JsonInvalid): { detail: ValidationIssue[] } {
  return {
    detail: [
      {
        type: 'json_invalid',
        loc: ['body', error.position],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: error.reason },
      },
    ],
  };
}

/** FastAPI's answer to a body Python cannot decode at all (not UTF-8, an over-long integer). */
const UNPARSEABLE = 'There was an error parsing the body';

/**
 * Parses a JSON body as FastAPI does (Python's `json.loads` on the bytes): a syntax error is
 * JsonInvalid with Python's message and position; bytes Python cannot decode are a 400.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  const text = decodeJsonBytes(bytes);
  if (text === null) throw errors.badRequest(UNPARSEABLE);
  // Nested deeper than any answer could be serialised again: refused (docs/internals/decisions.md).
  const deep = tooDeepAt(text);
  if (deep >= 0) throw new JsonInvalid(deep, 'recursion limit exceeded');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const refusal = pythonRefusal(text);
    throw new JsonInvalid(refusal?.pos ?? 0, refusal?.msg ?? 'Expecting value');
  }
  // Python's int() refuses integers of over 4300 digits, which JSON.parse takes. Only a text
  // with such a run of digits somewhere is scanned again as Python would.
  if (hasDigitRun(text, DIGITS_MAX + 1)) pythonRefusal(text);
  noteJsonSource(value, bytes);
  return value;
}

/**
 * Whether `text` has `run` ASCII digits in a row. Any such run covers a position p with
 * p % run === run - 1, so only those are probed and widened: a few reads for a report, where
 * /\d{4301}/ tried a match at every digit (a tenth of the board's time on a 5 KB report).
 */
export function hasDigitRun(text: string, run: number): boolean {
  for (let p = run - 1; p < text.length; p += run) {
    if (!isDigitAt(text, p)) continue;
    let from = p;
    while (from > 0 && isDigitAt(text, from - 1)) from--;
    let to = p + 1;
    while (to < text.length && isDigitAt(text, to)) to++;
    if (to - from >= run) return true;
  }
  return false;
}

function isDigitAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 0x30 && c <= 0x39;
}

function pythonRefusal(text: string): PythonJsonError | null {
  try {
    return pythonJsonError(text);
  } catch (error) {
    if (error instanceof TooManyDigits) throw errors.badRequest(UNPARSEABLE);
    throw error;
  }
}
