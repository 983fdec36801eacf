import type { FastifyReply } from 'fastify';
import type { ValidationIssue } from '../../shared/http/pydantic.js';
import { parseSelector, type Selector, SelectorError } from '../../shared/selector.js';

/**
 * `text` (a `selector` in the query, or a field of a body at `loc`) parsed once, or the
 * 422 issue naming where it is wrong (the message and `ctx.position`).
 */
export function selectorOrIssue(
  text: string,
  loc: (string | number)[],
): { selector: Selector } | { issue: ValidationIssue } {
  try {
    return { selector: parseSelector(text) };
  } catch (error) {
    if (!(error instanceof SelectorError)) throw error;
    return {
      issue: {
        type: 'value_error',
        loc,
        msg: `Value error, ${error.message}`,
        input: text.length > 200 ? `${text.slice(0, 200)}…` : text,
        ctx: { error: error.problem, position: error.position },
      },
    };
  }
}

/** Sends 422 with `issues` (FastAPI's HTTPValidationError), from a route whose schema lists it implicitly. */
export function unprocessable(reply: unknown, issues: ValidationIssue[]): FastifyReply {
  return (reply as FastifyReply).code(422).send({ detail: issues });
}
