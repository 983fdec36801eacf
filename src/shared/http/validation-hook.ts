import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
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
