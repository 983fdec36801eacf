import type { FastifyInstance } from 'fastify';
import type { Board } from '../domain/board.js';
import { JournalPage, JournalQuery } from '../schemas.js';
import { scopedJournal } from './journal-scope.js';

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
    async (request) => {
      const { limit } = request.query as { limit: number };
      const { board } = options;
      const machine = (name: string) => board.registry.get(name);
      return { entries: await scopedJournal(board.journal, request.actor.scope, limit, machine) };
    },
  );
}
