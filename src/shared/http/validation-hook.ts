import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { tooDeepAt } from '../json-depth.js';
import { check, checkParams, type ValidationIssue } from './pydantic.js';

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
    if (request.body === undefined) {
      issues.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null });
    } else if (plainBodies.has(request) && fastCheck(schema.body)?.Check(request.body)) {
      // The compiled check accepted it, so the 422 checker would too (see fastCheck).
      body = request.body;
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

/**
 * Bodies whose JSON text is plain ASCII with no \\u or \\r escape: in them every string counts the
 * same in graphemes (TypeBox's maxLength) and in code points (pydantic's).
 */
const plainBodies = new WeakSet<object>();

/** Notes that the request's body text is plain (called by the JSON body parser, once parsed). */
export function notePlainBody(request: object, text: string): void {
  // ASCII only (JSON text that parsed has no raw control characters in its strings), and no
  // escape that makes a character a grapheme would count differently. Native scans, no regex.
  if (Buffer.byteLength(text) === text.length && !text.includes('\\u') && !text.includes('\\r')) {
    plainBodies.add(request);
  }
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

/** Parses a JSON body, turning a syntax error into JsonInvalid with its character position. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  // Nested deeper than any answer could be serialised again: refused as pydantic does.
  const deep = tooDeepAt(text);
  if (deep >= 0) throw new JsonInvalid(deep, 'recursion limit exceeded');
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    const at = /position (\d+)/.exec(message);
    const position = at?.[1] !== undefined ? Number(at[1]) : text.length;
    const reason = position >= text.trimEnd().length ? 'Expecting value' : 'Invalid JSON';
    throw new JsonInvalid(position, reason);
  }
}
