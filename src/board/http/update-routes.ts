import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import { Name } from '../../shared/wire/common.js';
import {
  type AgentUpdates,
  UPDATE_BATCH,
  UPDATE_BATCH_INTERVALS,
  UPDATE_BATCH_WAIT_MAX_MS,
} from '../domain/agent-updates.js';
import { Detail, NameParams } from '../schemas.js';
import { sendAnswer } from './send-answer.js';

const UpdateAccepted = Type.Object({
  accepted: Type.Literal(true),
  name: Name,
  id: Type.String({ description: 'the update, as the journal names it' }),
  handed: Type.Union([Type.Literal('relayed'), Type.Literal('queued')], {
    description:
      "relayed: a configured machine's agent took it; queued: an announced machine gets it in its next report's answer",
  }),
});

const UpdateAllBody = Type.Object(
  {
    names: Type.Optional(
      Type.Array(Name, { maxItems: 10_000, description: 'only these machines (absent: all)' }),
    ),
  },
  { additionalProperties: false },
);

const UpdateAllAnswer = Type.Object({
  machines: Type.Array(Name, { description: 'the machines that will be handed the update' }),
});

/** POST /api/machines/{name}/update and POST /api/machines/update: updates from the board. */
export async function updateRoutes(
  app: FastifyInstance,
  options: { updates: AgentUpdates },
): Promise<void> {
  const { updates } = options;

  app.post(
    '/api/machines/:name/update',
    {
      config: { access: 'operator', machine: 'name' },
      schema: {
        operationId: 'update_agent',
        summary: "Hand a machine's agent the board's agent file",
        description:
          "The agent downloads its kind of file from the board's /agent/, checks it against SHA256SUMS, replaces itself and restarts. " +
          "Configured machine: relayed at once to the agent's POST /api/update. Announced machine: handed in the answer to its next report. " +
          "Journaled, and so is how it ends (updated, rolled_back or refused: who is machine, the agent's words quoted). 409 when the agent did not opt in (update_from_board), " +
          'does not run from one file, the board does not serve its kind of file, it already runs the board’s file, or an update of it is under way.',
        params: NameParams,
        response: { 202: UpdateAccepted, 404: Detail, 409: Detail, 502: Detail, 504: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      return sendAnswer(reply, await updates.request(request.who, name));
    },
  );

  app.post(
    '/api/machines/update',
    {
      config: { access: 'operator', fleet: true },
      schema: {
        operationId: 'update_all_agents',
        summary: 'Update every machine that can be updated, in batches',
        description:
          "Every configured or verified machine (an announced one whose report proved its key) that is up, took updates from the board and runs a file other than the board's " +
          `(of \`names\`, when given), ${UPDATE_BATCH} at a time: the next batch starts when each machine of the batch reported the new checksum or an outcome, ` +
          `or once it heard nothing from them for ${UPDATE_BATCH_INTERVALS} report intervals of its slowest machine (${UPDATE_BATCH_WAIT_MAX_MS / 60_000} minutes at most). ` +
          '409 while one runs. Journaled.',
        body: UpdateAllBody,
        response: { 202: UpdateAllAnswer, 409: Detail },
      },
      // A request without a body (no Content-Type) is taken as {}: every machine.
      onRequest: async (request) => {
        if (request.headers['content-type'] === undefined) request.body = {};
      },
    },
    async (request, reply) => {
      const body = request.body as { names?: string[] } | undefined;
      return sendAnswer(reply, await updates.requestAll(request.who, body?.names));
    },
  );
}
