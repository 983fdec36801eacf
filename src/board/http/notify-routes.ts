import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import { ONE_LINE_PATTERN } from '../../shared/wire/free-text.js';
import { KINDS } from '../notify/channels/types.js';
import { EVENTS } from '../notify/config.js';
import type { Notifier } from '../notify/notifier.js';
import { Detail } from '../schemas.js';

const NotifyView = Type.Object({
  channels: Type.Array(
    Type.Object({
      name: Type.String(),
      kind: Type.Union(KINDS.map((k) => Type.Literal(k))),
    }),
    { description: 'by name and kind: never a URL or a secret' },
  ),
  rules: Type.Array(
    Type.Object(
      {
        events: Type.Array(Type.Union(EVENTS.map((e) => Type.Literal(e)))),
        machines: Type.Array(Type.String()),
        selector: Type.Union([Type.String(), Type.Null()], {
          description: 'the label selector the rule also requires, or null (every machine)',
        }),
        channels: Type.Array(Type.String()),
        after: Type.Number({ description: 'seconds a state must hold first' }),
        failures: Type.Integer({ description: 'failed sweeps in a row first' }),
        repeat: Type.Number({ description: 'seconds between reminders; 0 = never' }),
        repeat_max: Type.Union([Type.Integer(), Type.Null()]),
        why: Type.Optional(Type.Array(Type.String())),
        metric: Type.Optional(Type.String()),
        containers: Type.Optional(
          Type.Array(Type.String(), { description: 'container rules: the container-name globs' }),
        ),
        checks: Type.Optional(
          Type.Array(Type.String(), { description: 'check rules: the check-name globs' }),
        ),
        path: Type.Optional(Type.String()),
        above: Type.Optional(Type.Number()),
        for: Type.Optional(Type.Number()),
      },
      { additionalProperties: false },
    ),
  ),
});

const TestBody = Type.Object(
  { channel: Type.String({ minLength: 1, maxLength: 64, pattern: ONE_LINE_PATTERN }) },
  { additionalProperties: false },
);

/** GET /api/notify and POST /api/notify/test. */
export async function notifyRoutes(
  app: FastifyInstance,
  options: { notifier: Notifier },
): Promise<void> {
  const { notifier } = options;

  app.get(
    '/api/notify',
    {
      config: { access: 'viewer', fleet: true },
      schema: {
        operationId: 'get_notify',
        summary: 'The notification channels (name and kind) and rules',
        response: { 200: NotifyView },
      },
    },
    async () => notifier.describe(),
  );

  app.post(
    '/api/notify/test',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'test_notify',
        summary: 'Send a test message through one channel (a real delivery, one try)',
        body: TestBody,
        response: {
          200: Type.Object({ channel: Type.String(), ok: Type.Literal(true) }),
          404: Detail,
          502: Detail,
        },
      },
    },
    async (request, reply) => {
      const { channel } = request.body as { channel: string };
      const result = await notifier.test(channel, request.who);
      if (!result.found) {
        return reply.code(404).send({ detail: `No notification channel named '${channel}'` });
      }
      if (!result.ok) {
        return reply
          .code(502)
          .send({ detail: `The test message through '${channel}' failed: ${result.why}` });
      }
      return { channel, ok: true as const };
    },
  );
}
