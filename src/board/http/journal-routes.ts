import type { FastifyInstance } from 'fastify';
import type { Board } from '../domain/board.js';
import { type JournalEntry, JournalPage, JournalQuery } from '../schemas.js';

/** GET /api/journal. */
export async function journalRoutes(
  app: FastifyInstance,
  options: {
    board: Board;
    /** Of several boards: the journal of all of them, from the store (null: this board's). */
    shared?: (limit: number) => Promise<JournalEntry[]> | null;
  },
): Promise<void> {
  app.get(
    '/api/journal',
    {
      schema: {
        operationId: 'get_journal',
        summary: 'What was done on the board and what it refused, most recent first',
        querystring: JournalQuery,
        response: { 200: JournalPage },
      },
    },
    async (request) => {
      const { limit } = request.query as { limit: number };
      const shared = options.shared?.(limit) ?? null;
      if (shared !== null) {
        // A store that cannot answer: this board's own journal, rather than nothing.
        const entries = await shared.catch(() => null);
        if (entries !== null) return { entries };
      }
      return { entries: options.board.journal.recent(limit) };
    },
  );
}
