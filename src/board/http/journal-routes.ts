import type { FastifyInstance } from 'fastify';
import type { ValidationIssue } from '../../shared/http/pydantic.js';
import type { Board } from '../domain/board.js';
import { actorFilter, servedWhere } from '../domain/journal-filter.js';
import { JournalPage, JournalQuery } from '../schemas.js';
import { unprocessable } from './selector-query.js';

/** GET /api/journal. */
export async function journalRoutes(
  app: FastifyInstance,
  options: { board: Board },
): Promise<void> {
  app.get(
    '/api/journal',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'get_journal',
        summary: 'What was done on the board and what it refused, most recent first',
        querystring: JournalQuery,
        response: { 200: JournalPage },
      },
    },
    async (request, reply) => {
      const { limit, actor } = request.query as { limit: number; actor?: string };
      if (actor === undefined) return { entries: await options.board.journal.served(limit) };
      const keep = actorFilter(actor);
      if (typeof keep === 'string') return unprocessable(reply, [actorIssue(actor, keep)]);
      return { entries: await servedWhere(options.board.journal, limit, (e) => keep(e.actor)) };
    },
  );
}

/** The 422 issue of a `?actor=` that names no actor. */
function actorIssue(text: string, problem: string): ValidationIssue {
  return {
    type: 'value_error',
    loc: ['query', 'actor'],
    msg: `Value error, ${problem}`,
    input: text,
  };
}
