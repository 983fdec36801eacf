import type { FastifyInstance } from 'fastify';
import { Overview } from '../../shared/wire/overview.js';
import type { OverviewSource } from '../domain/overview.js';
import { type Credentials, requireRole, roleOf } from './auth.js';
import { Detail } from './schemas.js';

/** GET /api/overview: the machine as it sees itself (agent token or board key). */
export async function overviewRoutes(
  app: FastifyInstance,
  options: {
    credentials: Credentials;
    source: OverviewSource;
    /** A board-key request was answered (a polled agent's new file on trial confirms on it). */
    boardRead?: () => void;
  },
): Promise<void> {
  app.get(
    '/api/overview',
    {
      onRequest: requireRole(options.credentials, ['operator', 'board']),
      schema: {
        summary: "The machine's overview",
        description:
          'Opened by the agent token or the board key. Service states come from a short cache ' +
          'and never wait for a status command; a state not known yet is `unknown`.',
        response: { 200: Overview, 401: Detail },
      },
    },
    async (request) => {
      const overview = await options.source.overview();
      if (options.boardRead !== undefined && roleOf(request, options.credentials) === 'board') {
        options.boardRead();
      }
      return overview;
    },
  );
}
