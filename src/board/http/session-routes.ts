import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '../../shared/typebox.js';
import { Name } from '../../shared/wire/common.js';
import { ONE_LINE_PATTERN } from '../../shared/wire/free-text.js';
import type { Inbox, SessionState } from '../domain/inbox.js';
import { Detail, SESSIONS_LIMIT_MAX } from '../schemas.js';
import { sendAnswer } from './send-answer.js';

const SessionsQuery = Type.Object({
  state: Type.Optional(
    Type.Union([Type.Literal('open'), Type.Literal('all')], {
      default: 'all',
      description: 'open: only the sessions waiting for a person; all: every session',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: SESSIONS_LIMIT_MAX,
      default: 1000,
      description: 'at most this many sessions (the first in order); `total` counts them all',
    }),
  ),
});

const Iso = (description: string) => Type.String({ description: `ISO 8601: ${description}` });

const SessionItem = Type.Object({
  machine: Name,
  session: Type.String(),
  why: Type.String({ description: 'the latest bell: finished, attention or error' }),
  text: Type.String(),
  at: Iso('when the latest bell rang (the machine’s clock)'),
  waiting_s: Type.Integer({ minimum: 0, description: 'whole seconds since `at`' }),
  acknowledged_at: Type.Union([Iso('when a person acknowledged this bell'), Type.Null()], {
    description: 'null: not acknowledged since the session last rang',
  }),
  machine_state: Type.Union([Type.Literal('up'), Type.Literal('down')], {
    description: 'down: these are the sessions the machine listed when it was last heard from',
  }),
});

const SessionList = Type.Object({
  sessions: Type.Array(SessionItem),
  total: Type.Integer({ minimum: 0, description: 'how many sessions matched (before `limit`)' }),
});

const SessionName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: ONE_LINE_PATTERN,
  description: 'the session’s name, URL-encoded: one line, no control or bidi-override characters',
});

const AckParams = Type.Object({ machine: Name, session: SessionName });
const AckQuery = Type.Object({ session: SessionName });

const AckAnswer = Type.Object({
  machine: Name,
  session: Type.String(),
  acknowledged_at: Iso('when the bell was acknowledged (the first time, if it was before)'),
});

/** GET /api/sessions and POST /api/sessions/{machine}/{session}/ack: the attention inbox. */
export async function sessionRoutes(
  app: FastifyInstance,
  options: { inbox: Inbox },
): Promise<void> {
  const { inbox } = options;

  app.get(
    '/api/sessions',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'list_sessions',
        summary: 'The sessions of every machine: those waiting for a person first',
        description:
          'A session is open when its latest bell is attention or error and nobody acknowledged it since. ' +
          'Open ones come first, longest waiting first; then the rest, newest first. ' +
          'A down machine’s sessions are those it listed when last heard from (machine_state: down).',
        querystring: SessionsQuery,
        response: { 200: SessionList },
      },
    },
    async (request) => {
      const { state, limit } = request.query as { state: SessionState; limit: number };
      const { scope } = request.actor;
      return inbox.list(state, limit, null, (m) => scope.sees(m));
    },
  );

  const acknowledge = async (request: FastifyRequest, reply: FastifyReply) => {
    const { machine, session } = request.params as { machine: string; session: string };
    return sendAnswer(reply, await inbox.acknowledge(request.who, machine, session));
  };
  const ackSchema = {
    operationId: 'acknowledge_session',
    summary: 'Acknowledge a session’s bell: it is no longer open until it rings again',
    description:
      'Kept in the store (every board of a cluster sees it) and journaled (op ack). ' +
      'Acknowledging a bell already acknowledged answers the first time. ' +
      'A `/` in the session’s name travels as `%2F`.',
    params: AckParams,
    response: { 200: AckAnswer, 404: Detail, 503: Detail },
  };
  app.post(
    '/api/sessions/:machine/:session/ack',
    { schema: ackSchema, config: { access: 'operator', machine: 'machine' } },
    acknowledge,
  );
  // A name with a `/`: its `%2F` is decoded with the path (as uvicorn does), so the name spans
  // segments; find-my-way has no such parameter, so a wildcard takes it, Starlette-style.
  app.post(
    '/api/sessions/:machine/*',
    {
      schema: { ...ackSchema, hide: true },
      config: {
        path: '/api/sessions/:machine/:session{path}/ack',
        access: 'operator',
        machine: 'machine',
      },
      onRequest: async (request) => {
        const params = request.params as Record<string, string>;
        const rest = params['*'] ?? '';
        request.params = { machine: params.machine, session: rest.slice(0, -'/ack'.length) };
      },
    },
    acknowledge,
  );
  // A name a browser's URL rules fold away as a path segment (`.`, `..`, even as `%2E`).
  app.post(
    '/api/sessions/:machine/ack',
    {
      config: { access: 'operator', machine: 'machine' },
      schema: {
        operationId: 'acknowledge_session_by_query',
        summary: 'Acknowledge a session’s bell, the session named in the query',
        description:
          'The same as POST /api/sessions/{machine}/{session}/ack, for any name: one that a ' +
          'URL folds away as a path segment (`.` or `..`) can only be given here.',
        params: Type.Object({ machine: Name }),
        querystring: AckQuery,
        response: { 200: AckAnswer, 404: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { machine } = request.params as { machine: string };
      const { session } = request.query as { session: string };
      return sendAnswer(reply, await inbox.acknowledge(request.who, machine, session));
    },
  );
}
