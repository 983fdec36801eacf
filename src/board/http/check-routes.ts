import type { FastifyInstance } from 'fastify';
import { CHECK_DETAIL_MAX, CheckName } from '../../shared/checks/wire.js';
import { Type } from '../../shared/typebox.js';
import type { CheckBook } from '../checks/check-book.js';
import { checkRows, checkSight } from '../checks/check-rows.js';
import type { CheckHistoryPort } from '../checks/ports.js';
import type { Registry } from '../domain/registry.js';

const RunnerRow = Type.Object({
  machine: Type.String({
    description:
      "a runner's machine name, or @board (the board's own runs), or @push (a push check's beats)",
  }),
  ok: Type.Boolean(),
  ms: Type.Number({ minimum: 0 }),
  detail: Type.String({ maxLength: CHECK_DETAIL_MAX }),
  at: Type.String(),
});

const CheckRow = Type.Object({
  name: CheckName,
  type: Type.String({ description: 'http, tcp, dns, tls, icmp or push' }),
  state: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('unknown')]),
  since: Type.Union([Type.String(), Type.Null()], {
    description: 'ISO 8601 time of the last change of state; null while unknown',
  }),
  uptime_24h: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
    description: 'share of the last 24 hours the check was up; null when history is off or empty',
  }),
  runners: Type.Array(RunnerRow),
});

/** GET /api/checks. */
export async function checkRoutes(
  app: FastifyInstance,
  options: { checks: CheckBook; registry: Registry; history?: CheckHistoryPort | null },
): Promise<void> {
  const { checks, registry } = options;
  const history = options.history ?? null;
  app.get(
    '/api/checks',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'list_checks',
        summary: "The checks (board.yaml's checks:) with their state and each runner's last result",
        description:
          'A scoped caller sees the checks whose labels its scope matches, and of their runners ' +
          'the machines it sees.',
        response: { 200: Type.Array(CheckRow) },
      },
    },
    async (request) =>
      checkRows(
        checks,
        checkSight(request.actor.scope, (name) => registry.get(name)),
        history,
        Date.now(),
      ),
  );
}
