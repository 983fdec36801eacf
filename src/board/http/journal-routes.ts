import type { FastifyInstance } from 'fastify';
import type { ValidationIssue } from '../../shared/http/pydantic.js';
import { journalSeen } from '../auth/journal-sight.js';
import type { Board } from '../domain/board.js';
import { actorFilter, servedWhere } from '../domain/journal-filter.js';
import { type JournalEntry, JournalPage, JournalQuery } from '../schemas.js';
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
      const { board } = options;
      const { scope } = request.actor;
      const keep = actor === undefined ? null : actorFilter(actor);
      if (typeof keep === 'string') return unprocessable(reply, [actorIssue(actor ?? '', keep)]);
      // An unscoped admin (the board token) without a filter: the journal as it is.
      if (keep === null && scope.whole('admin'))
        return { entries: await board.journal.served(limit) };
      const machine = (name: string) => board.registry.get(name);
      const shown = (e: JournalEntry) =>
        (keep === null || keep(e.actor)) && journalSeen(scope, e, machine);
      return { entries: await servedWhere(board.journal, limit, shown) };
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
