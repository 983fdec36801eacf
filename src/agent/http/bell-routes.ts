import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import { Bell } from '../../shared/wire/overview.js';
import type { Bells } from '../domain/bells.js';
import { type Credentials, requireRole } from './auth.js';
import { Detail } from './schemas.js';

const BellAnswer = Type.Object({ ok: Type.Literal(true) });

/** POST /api/bell: a session on this machine says it finished or wants attention. */
export async function bellRoutes(
  app: FastifyInstance,
  options: { credentials: Credentials; bells: Bells },
): Promise<void> {
  app.post(
    '/api/bell',
    {
      onRequest: requireRole(options.credentials, ['operator', 'bell']),
      schema: {
        summary: 'Ring the bell of a session',
        description:
          'The agent token or the bell token (which opens this endpoint alone). ' +
          'JSON only. The latest bell of each session is kept (at most 200 sessions; ' +
          'the one that rang least recently goes first), in data_dir across restarts and updates, ' +
          'and shown in the overview. Answered once kept.',
        body: Bell,
        response: { 200: BellAnswer, 401: Detail, 403: Detail },
      },
    },
    async (request) => {
      options.bells.ring(request.body as Bell);
      await options.bells.kept();
      return { ok: true };
    },
  );
}
