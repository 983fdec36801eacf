import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import { type Credentials, requireRole } from './auth.js';
import { Detail } from './schemas.js';

/** What the update route needs of the updater. */
export interface UpdateControl {
  /** Starts an update in the background, or returns why it cannot (the 409's detail). */
  request(requestId?: string): string | null;
}

const Accepted = Type.Object({ accepted: Type.Literal(true) });

/** POST /api/update: update the agent's own file from its board (agent token or board key). */
export async function updateRoutes(
  app: FastifyInstance,
  options: { credentials: Credentials; updates: UpdateControl },
): Promise<void> {
  app.post(
    '/api/update',
    {
      onRequest: requireRole(options.credentials, ['operator', 'board']),
      schema: {
        summary: "Update the agent's own file from its board",
        description:
          'No body. The agent downloads its kind of file from the board of `update_from_board` ' +
          '(never from a URL in the request), checks it against the board’s SHA256SUMS, puts ' +
          'it in place, starts it, and goes back to the old file unless the new one reports ' +
          'within a minute; the overview’s `update_outcome` tells how it ended. 409 when ' +
          'updates are off, when the agent does not run from one agent file, or while an ' +
          'update runs.',
        response: { 202: Accepted, 401: Detail, 409: Detail },
      },
    },
    async (request, reply) => {
      const refused = options.updates.request();
      if (refused !== null) {
        request.log.info({ detail: refused }, 'update refused');
        return reply.code(409).send({ detail: refused });
      }
      return reply.code(202).send({ accepted: true });
    },
  );
}
