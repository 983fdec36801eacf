import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import type { Membership } from '../cluster/membership.js';

const ClusterView = Type.Object({
  self: Type.String({
    description: 'board_id of the board that answered (the one serving this page)',
  }),
  boards: Type.Array(
    Type.Object({
      id: Type.String({ description: 'board_id' }),
      alive: Type.Boolean({ description: 'its heartbeat is younger than failover_after' }),
      seen_at: Type.String({ description: 'ISO 8601 time of its last heartbeat' }),
      machines: Type.Integer({ minimum: 0, description: 'configured machines it polls' }),
    }),
  ),
});

/** GET /api/cluster: the boards that share this board's store (a single board lists itself). */
export async function clusterRoutes(
  app: FastifyInstance,
  options: { membership: Membership },
): Promise<void> {
  app.get(
    '/api/cluster',
    {
      config: { access: 'viewer', fleet: true },
      schema: {
        operationId: 'get_cluster',
        summary: "The boards that share this board's store, alive or not",
        response: { 200: ClusterView },
      },
    },
    async () => ({ self: options.membership.selfId(), boards: options.membership.boards() }),
  );
}
