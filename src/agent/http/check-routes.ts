import type { FastifyInstance } from 'fastify';
import { HandedChecks } from '../../shared/checks/wire.js';
import { Type } from '../../shared/typebox.js';
import { type Credentials, requireRole } from './auth.js';
import { Detail } from './schemas.js';

const Taken = Type.Object({
  version: Type.String({ description: 'the version now run (the overview’s checks_version)' }),
});

/** PUT /api/checks: the board hands a polled agent the checks it runs. */
export async function checkRoutes(
  app: FastifyInstance,
  options: { credentials: Credentials; take: (handed: HandedChecks) => void },
): Promise<void> {
  app.put(
    '/api/checks',
    {
      onRequest: requireRole(options.credentials, ['operator', 'board']),
      schema: {
        summary: 'Run these checks (the board hands them; board key or agent token)',
        description:
          'Replaces the checks this agent runs: new ones start (their first runs spread over ' +
          'their first interval), removed ones stop, unchanged ones go on. Kept in memory only: ' +
          'the board hands them again when the overview’s `checks_version` differs from its own.',
        body: HandedChecks,
        response: { 200: Taken, 401: Detail, 403: Detail },
      },
    },
    async (request) => {
      const handed = request.body as HandedChecks;
      options.take(handed);
      request.log.info({ version: handed.version, checks: handed.checks.length }, 'checks handed');
      return { version: handed.version };
    },
  );
}
