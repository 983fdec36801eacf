import type {} from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import { type Credentials, requireRole } from './auth.js';
import { Detail } from './schemas.js';

/** GET /api/openapi.json: the agent's OpenAPI 3.1.0 document (agent token only). */
export async function openApiRoutes(
  app: FastifyInstance,
  options: { credentials: Credentials },
): Promise<void> {
  app.get(
    '/api/openapi.json',
    {
      onRequest: requireRole(options.credentials, ['operator']),
      schema: {
        summary: "The agent's OpenAPI document",
        response: {
          200: Type.Object({}, { additionalProperties: true }),
          401: Detail,
          403: Detail,
        },
      },
    },
    async () => app.swagger(),
  );
}
