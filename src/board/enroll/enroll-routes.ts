import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sendAnswer } from '../http/send-answer.js';
import { Detail, EnrollAnswer, EnrollmentList, NameParams } from '../schemas.js';
import { AGENT_FILE_MISSING, type AgentFile } from './agent-file.js';
import { AGENT_FILE_ROUTE, boardAddress } from './command.js';
import type { Enroller } from './enroller.js';
import type { Enrollments } from './enrollments.js';

export interface EnrollRouteOptions {
  enroller: Enroller;
  enrollments: Enrollments;
  agentFile: AgentFile;
  /** `public_url`, and whether the board serves HTTPS (for the address in the command). */
  address: () => { publicUrl: string | null; tls: boolean };
}

/** Adding a machine from the board: the one-file agent, enroll, and the enrolled names. */
export async function enrollRoutes(app: FastifyInstance, options: EnrollRouteOptions) {
  const { enroller, enrollments, agentFile } = options;

  app.get(
    AGENT_FILE_ROUTE,
    {
      config: { access: 'open' },
      schema: {
        operationId: 'get_agent_file',
        summary: 'The agent as one file (runs with `node panoptes-agent.mjs` on Node 20 or later)',
        description:
          'Open, like the UI: the agent holds no secret. Its SHA-256 is in the ETag and in the enroll answer.',
        response: {
          200: Type.String({ description: 'JavaScript (an ES module)' }),
          304: Type.Null({ description: 'Not modified since the ETag' }),
          404: Detail,
        },
      },
    },
    async (request, reply) => {
      const file = await agentFile.get();
      if (file === null) {
        return reply.code(404).send({ detail: AGENT_FILE_MISSING });
      }
      const etag = `"${file.sha256}"`;
      reply.header('etag', etag).header('cache-control', 'no-cache');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type('text/javascript; charset=utf-8').send(file.bytes);
    },
  );

  app.post(
    '/api/machines/:name/enroll',
    {
      schema: {
        operationId: 'enroll_machine',
        summary: 'Add a machine: a fresh key for the name, and the command to paste on it',
        description:
          'Enrolling a name again makes a new key (the earlier one stops working). The command carries the registration token, never the board token.',
        params: NameParams,
        response: { 200: EnrollAnswer, 409: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const { publicUrl, tls } = options.address();
      const board = boardAddress(publicUrl, tls, request.headers.host);
      const answer = await enroller.enroll(request.who, name, board);
      // The answer holds a key: no cache keeps it.
      reply.header('cache-control', 'no-store');
      return sendAnswer(reply, answer);
    },
  );

  app.get(
    '/api/enrollments',
    {
      schema: {
        operationId: 'list_enrollments',
        summary: 'The machines added from the board (names only, never a key)',
        response: { 200: EnrollmentList },
      },
    },
    async () => ({ enrollments: enrollments.list() }),
  );
}
