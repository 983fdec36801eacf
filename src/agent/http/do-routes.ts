import type { FastifyInstance } from 'fastify';
import { ActionResult } from '../../shared/wire/action.js';
import type { ActionName } from '../../shared/wire/common.js';
import type { Services } from '../domain/services.js';
import { type Credentials, requireRole, roleOf } from './auth.js';
import { Detail, DoParams } from './schemas.js';

/** POST /api/do/{what}/{action}: start or stop a published service. */
export async function doRoutes(
  app: FastifyInstance,
  options: { credentials: Credentials; services: Services },
): Promise<void> {
  const { credentials, services } = options;
  app.post(
    '/api/do/:what/:action',
    {
      onRequest: requireRole(credentials, ['operator', 'board']),
      schema: {
        summary: 'Start or stop a published service',
        description:
          "The agent token may do any published action; the board key only what the service's " +
          '`board` list allows. The answer is 200 with `ok: false` when the command failed.',
        params: DoParams,
        response: { 200: ActionResult, 401: Detail, 403: Detail, 404: Detail, 409: Detail },
      },
    },
    async (request, reply) => {
      const { what, action } = request.params as { what: string; action: ActionName };
      // requireRole let only these two through.
      const role = roleOf(request, credentials) === 'operator' ? 'operator' : 'board';
      const outcome = await services.act(what, action, role);
      if (outcome.status === 200) {
        const { ok, exit_code } = outcome.body;
        request.log.info({ what, action, role, ok, exit_code }, 'action ran');
      } else {
        request.log.info({ what, action, role, status: outcome.status }, 'action refused');
      }
      return reply.code(outcome.status).send(outcome.body);
    },
  );
}
