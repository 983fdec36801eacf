import type { FastifyInstance } from 'fastify';
import { NO_SECURITY } from '../../shared/http/openapi.js';
import { Type } from '../../shared/typebox.js';
import { VERSION } from '../../shared/version.js';

const Health = Type.Object({ status: Type.Literal('ok'), version: Type.String() });

/** GET /api/health: open to anyone, says only that the agent is up. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/api/health',
    {
      schema: {
        summary: 'Whether the agent is up',
        description: 'Needs no token and tells nothing about the machine.',
        security: NO_SECURITY,
        response: { 200: Health },
      },
    },
    async () => ({ status: 'ok', version: VERSION }),
  );
}
