import type { FastifyInstance } from 'fastify';
import { CheckName } from '../../shared/checks/wire.js';
import { Type } from '../../shared/typebox.js';
import type { CheckBook } from '../checks/check-book.js';
import { checkSight, seesRunner } from '../checks/check-rows.js';
import type { Registry } from '../domain/registry.js';
import type { History } from '../history/history.js';
import { RANGES } from '../history/query.js';
import { Detail } from '../schemas.js';

/** The windows of a check's history, in seconds. */
const CHECK_RANGES = {
  '1h': RANGES['1h'],
  '24h': RANGES['24h'],
  '7d': RANGES['7d'],
  '30d': RANGES['30d'],
};
type CheckRange = keyof typeof CHECK_RANGES;

const Share = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]);

const CheckHistoryView = Type.Object({
  check: CheckName,
  range: Type.String(),
  from: Type.Integer({ description: 'epoch seconds' }),
  to: Type.Integer({ description: 'epoch seconds' }),
  runners: Type.Array(
    Type.Object({
      runner: Type.String({ description: 'a machine name, @board or @push' }),
      points: Type.Array(
        Type.Object({
          t: Type.Integer({ description: "epoch seconds, the point's start" }),
          ok: Type.Number({ minimum: 0, maximum: 1, description: 'share of good runs' }),
          ms: Type.Union([Type.Number(), Type.Null()], {
            description: 'mean response time of the good runs; null: none',
          }),
        }),
      ),
    }),
  ),
  uptime: Type.Union([Share], {
    description: "share of the window the check's runners saw it up (their mean); null: no result",
  }),
});

const OFF = 'History is turned off (history: false in board.yaml)';

/** GET /api/checks/{name}/history. */
export async function checkHistoryRoutes(
  app: FastifyInstance,
  options: {
    checks: CheckBook;
    registry: Registry;
    history: History | null;
    unavailable: string | null;
  },
): Promise<void> {
  const { checks, registry, history } = options;
  app.get(
    '/api/checks/:name/history',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'get_check_history',
        summary:
          "A check's results over a window: per runner, the share of good runs and the mean response time",
        description:
          'A scoped caller sees the checks whose labels its scope matches, and of their runners the machines it sees.',
        params: Type.Object({ name: CheckName }),
        querystring: Type.Object({
          range: Type.Optional(
            Type.Union(
              Object.keys(CHECK_RANGES).map((r) => Type.Literal(r)),
              { default: '24h', description: 'the window up to now' },
            ),
          ),
        }),
        response: { 200: CheckHistoryView, 404: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const { range } = request.query as { range: CheckRange };
      const sight = checkSight(request.actor.scope, (n) => registry.get(n));
      const check = checks.settings().find((c) => c.name === name);
      if (check === undefined || !sight.check(name, check.labels))
        return reply.code(404).send({ detail: `No check named '${name}' on this board` });
      if (history === null) return reply.code(503).send({ detail: options.unavailable ?? OFF });
      const to = Math.ceil(history.nowS());
      const from = Math.floor(to - CHECK_RANGES[range]);
      const [series, uptime] = await Promise.all([
        history.checks.series(name, from, to),
        history.checks.uptime(name, from * 1000, to * 1000),
      ]);
      const runners = series.filter((s) => seesRunner(sight, s.runner));
      return { check: name, range, from, to, runners, uptime };
    },
  );
}
