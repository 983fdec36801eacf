import type { FastifyInstance } from 'fastify';
import { HandedChecks } from '../../shared/checks/wire.js';
import type { Clock } from '../../shared/clock.js';
import { Type } from '../../shared/typebox.js';
import { Name } from '../../shared/wire/common.js';
import { checksProofProblem } from '../../shared/wire/key-proof.js';
import type { CheckHanding } from '../checks/handing.js';
import type { Board } from '../domain/board.js';
import type { Registry } from '../domain/registry.js';
import { Detail } from '../schemas.js';

const MineQuery = Type.Object(
  {
    name: Name,
    key_proof: Type.Optional(
      Type.String({
        maxLength: 128,
        description:
          "HMAC-SHA256 (hex) of 'panoptes-checks-at\\n{name}\\n{key_proof_at}' under the machine's " +
          'board key; required when the board holds a key for the name',
      }),
    ),
    key_proof_at: Type.Optional(
      Type.String({
        maxLength: 40,
        description: "ISO 8601 time of the request, within 5 minutes of the board's clock",
      }),
    ),
  },
  { additionalProperties: false },
);

/** GET /api/checks/mine: an announced agent fetches the check definitions it runs. */
export async function checkMineRoutes(
  app: FastifyInstance,
  options: { handing: CheckHanding; registry: Registry; board: Board; clock: Clock },
): Promise<void> {
  const { handing, registry, board, clock } = options;
  app.get(
    '/api/checks/mine',
    {
      config: { access: 'report' },
      schema: {
        operationId: 'my_checks',
        summary: 'The checks a machine runs (what its report’s answer hands it)',
        description:
          'With the token a machine reports with. The checks whose runners.selector matches the ' +
          "machine's board labels (its name is a label), and their version. A name the board holds " +
          'a key for must prove it (key_proof, key_proof_at); the board token needs no proof. A configured ' +
          'machine is handed its checks by the board (409 to the registration token).',
        querystring: MineQuery,
        response: { 200: HandedChecks, 403: Detail, 404: Detail, 409: Detail },
      },
    },
    async (request, reply) => {
      const query = request.query as {
        name: string;
        key_proof?: string;
        key_proof_at?: string;
      };
      const { name } = query;
      const key = board.keyFor(name);
      if (request.who.word === 'registration' && key !== undefined) {
        const problem = checksProofProblem(
          key,
          name,
          query.key_proof,
          query.key_proof_at,
          clock.now(),
        );
        if (problem !== null) {
          const detail = `A request for '${name}''s checks must prove it holds the key the board keeps for it: ${problem}`;
          return reply.code(403).send({ detail });
        }
      }
      const m = registry.get(name);
      if (m === undefined)
        return reply.code(404).send({ detail: `No machine named '${name}' on this board` });
      // A configured machine never reports: the registration token does not speak for it.
      if (m.origin === 'configured' && request.who.word === 'registration') {
        const detail = `'${name}' is a configured machine; the board hands it its checks (PUT /api/checks on its agent)`;
        return reply.code(409).send({ detail });
      }
      return handing.forMachine(m.name, m.boardLabels);
    },
  );
}
