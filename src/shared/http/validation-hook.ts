import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { tooDeepAt } from '../json-depth.js';
import { errors } from './errors.js';
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
  if (schema.body) {
    // No body, an empty one, or JSON `null`: FastAPI has no value, so the body is missing.
    if (request.body === undefined || request.body === null) {
      issues.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null });
    } else {
      body = check(schema.body, request.body, ['body'], issues, false);
    }
  }
  if (issues.length > 0) {
    await reply.code(422).send({ detail: issues });
    return;
  }
  if (params) request.params = params;
  if (query) request.query = query;
  if (schema.body) request.body = body;
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
  // Nested deeper than any answer could be serialised again: refused (decisions.md).
  const deep = tooDeepAt(text);
  if (deep >= 0) throw new JsonInvalid(deep, 'recursion limit exceeded');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const refusal = pythonRefusal(text);
    throw new JsonInvalid(refusal?.pos ?? 0, refusal?.msg ?? 'Expecting value');
  }
  // Python's int() refuses integers of over 4300 digits, which JSON.parse takes.
  if (text.length > 4300) pythonRefusal(text);
  return value;
}

function pythonRefusal(text: string): PythonJsonError | null {
  try {
    return pythonJsonError(text);
  } catch (error) {
    if (error instanceof TooManyDigits) throw errors.badRequest(UNPARSEABLE);
    throw error;
  }
}
