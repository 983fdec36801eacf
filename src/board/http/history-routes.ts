import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '../../shared/typebox.js';
import type { Registry } from '../domain/registry.js';
import type { History } from '../history/history.js';
import { METRICS } from '../history/history-store.js';
import { parseInstant, RANGES, type RangeName } from '../history/query.js';
import { Detail, NameParams } from '../schemas.js';

const Column = Type.Array(Type.Union([Type.Number(), Type.Null()]));
const Metrics = Type.Object(Object.fromEntries(METRICS.map((k) => [k, Column])));
const Share = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]);

export const HistoryQuery = Type.Object({
  range: Type.Optional(
    Type.Union(
      Object.keys(RANGES).map((r) => Type.Literal(r)),
      { default: '24h', description: 'the window up to now (ignored when from or to is given)' },
    ),
  ),
  points: Type.Optional(Type.Integer({ minimum: 10, maximum: 2000, default: 300 })),
  from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 or epoch seconds' })),
  to: Type.Optional(
    Type.String({ maxLength: 40, description: 'ISO 8601 or epoch seconds (default: now)' }),
  ),
});

export const HistoryView = Type.Object({
  name: Type.String(),
  range: Type.String({ description: 'the range asked for, or "custom" for from/to' }),
  step_s: Type.Integer({ description: 'seconds between two points' }),
  series: Type.Object(
    {
      t: Type.Array(Type.Integer(), { description: 'epoch seconds, ascending' }),
      up: Type.Array(Type.Union([Type.Number(), Type.Null()]), {
        description: 'share of the samples in which the machine was up, 0–1',
      }),
      ...Object.fromEntries(METRICS.map((k) => [k, Column])),
    },
    {
      description:
        'averages per point; column arrays of equal length, null where nothing was recorded',
    },
  ),
  max: Type.Object(Metrics.properties, { description: 'the largest value within each point' }),
});

export const EventsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
});

export const EventsView = Type.Object({
  events: Type.Array(
    Type.Object({
      at: Type.String({ description: 'ISO 8601' }),
      state: Type.Union([Type.Literal('up'), Type.Literal('down')]),
      previous: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Null()], {
        description: 'null: first seen since the board started',
      }),
      reason: Type.Union([Type.String(), Type.Null()]),
      duration_s: Type.Union([Type.Number(), Type.Null()], {
        description: 'how long the previous state lasted',
      }),
    }),
  ),
});

export const UptimeView = Type.Object({
  machines: Type.Array(
    Type.Object({ name: Type.String(), '24h': Share, '7d': Share, '30d': Share }),
  ),
});

const OFF = 'History is turned off (history: false in board.yaml)';

/** GET /api/machines/{name}/history, /api/machines/{name}/events and /api/uptime. */
export async function historyRoutes(
  app: FastifyInstance,
  options: { registry: Registry; history: History | null; unavailable: string | null },
): Promise<void> {
  const { registry, history } = options;
  const off = (reply: FastifyReply) => reply.code(503).send({ detail: options.unavailable ?? OFF });
  const known = async (name: string) =>
    registry.get(name) !== undefined || (history !== null && (await history.has(name)));
  const missing = (reply: FastifyReply, name: string) =>
    reply.code(404).send({ detail: `No machine named ${name}` });

  app.get(
    '/api/machines/:name/history',
    {
      config: { access: 'viewer', machine: 'name' },
      schema: {
        operationId: 'get_history',
        summary: "A machine's recorded metrics over a window, as column arrays (uPlot's layout)",
        description:
          'At most `points` points spanning the whole window, from the coarsest tier that still fills them (raw sweeps, 5-minute or hourly aggregates); null where nothing was recorded.',
        params: NameParams,
        querystring: HistoryQuery,
        response: { 200: HistoryView, 404: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const q = request.query as { range: RangeName; points: number; from?: string; to?: string };
      if (history === null) return off(reply);
      const now = history.nowS();
      const custom = q.from !== undefined || q.to !== undefined;
      const to = q.to === undefined ? now : parseInstant(q.to);
      const from = q.from === undefined ? (to ?? now) - RANGES['24h'] : parseInstant(q.from);
      const issues = [];
      if (from === null) issues.push(instantIssue('from', q.from));
      if (to === null) issues.push(instantIssue('to', q.to));
      if (issues.length === 0 && from !== null && to !== null && from >= to) {
        issues.push({
          type: 'value_error',
          loc: ['query', 'from'],
          msg: 'Value error, from must be earlier than to',
          input: q.from ?? null,
        });
      }
      if (issues.length > 0 || from === null || to === null) return unprocessable(reply, issues);
      if (!(await known(name))) return missing(reply, name);
      const window = custom
        ? { fromS: Math.floor(from), toS: Math.ceil(to) }
        : { fromS: Math.floor(now - RANGES[q.range]), toS: Math.ceil(now) };
      return history.series(name, custom ? 'custom' : q.range, window, q.points);
    },
  );

  app.get(
    '/api/machines/:name/events',
    {
      config: { access: 'viewer', machine: 'name' },
      schema: {
        operationId: 'get_events',
        summary: "A machine's state changes, most recent first",
        params: NameParams,
        querystring: EventsQuery,
        response: { 200: EventsView, 404: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const { limit } = request.query as { limit: number };
      if (history === null) return off(reply);
      if (!(await known(name))) return missing(reply, name);
      return { events: await history.events(name, limit) };
    },
  );

  app.get(
    '/api/uptime',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'get_uptime',
        summary: 'Every machine: the share of the last 24 h, 7 d and 30 d it was up',
        description:
          'Exact, from state changes; counted from when the machine was first seen if that is later than the window start; null if not seen yet.',
        response: { 200: UptimeView, 503: Detail },
      },
    },
    async (request, reply) => {
      if (history === null) return off(reply);
      const { scope } = request.actor;
      const names = (function* () {
        for (const m of registry.all()) if (scope.sees(m)) yield m.name;
      })();
      const rows = await history.uptime(names);
      if (scope.whole('viewer')) return { machines: rows };
      // The history holds machines no longer on the board too: a scope sees only its own.
      const seen = (name: string) => {
        const m = registry.get(name);
        return m !== undefined && scope.sees(m);
      };
      return { machines: rows.filter((r) => seen(r.name)) };
    },
  );
}

/** 422 in the shape the validation hook answers (a check the schema cannot express). */
function unprocessable(reply: unknown, issues: unknown[]): FastifyReply {
  return (reply as FastifyReply).code(422).send({ detail: issues });
}

function instantIssue(field: 'from' | 'to', input: string | undefined) {
  return {
    type: 'value_error',
    loc: ['query', field],
    msg: 'Value error, expected ISO 8601 or epoch seconds',
    input: input ?? null,
  };
}
