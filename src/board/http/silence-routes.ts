import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import { ONE_LINE_PATTERN } from '../../shared/wire/free-text.js';
import { SILENCE_MINUTES_MAX, type Silences } from '../notify/silences.js';
import { Detail, NameParams } from '../schemas.js';
import { sendAnswer } from './send-answer.js';

const SilenceBody = Type.Object(
  {
    minutes: Type.Integer({ minimum: 1, maximum: SILENCE_MINUTES_MAX }),
    reason: Type.Optional(
      Type.String({
        maxLength: 500,
        pattern: ONE_LINE_PATTERN,
        description: 'why: one line, no control or bidi-override characters',
      }),
    ),
  },
  { additionalProperties: false },
);

const SilenceAnswer = Type.Object({
  name: Type.String(),
  silenced_until: Type.Union([Type.String({ description: 'ISO 8601' }), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
});

/** POST and DELETE /api/machines/{name}/silence: maintenance windows for notifications. */
export async function silenceRoutes(
  app: FastifyInstance,
  options: { silences: Silences },
): Promise<void> {
  const { silences } = options;

  app.post(
    '/api/machines/:name/silence',
    {
      config: { access: 'operator', machine: 'name' },
      schema: {
        operationId: 'silence_machine',
        summary: 'Silence notifications for a machine for a while (maintenance)',
        description:
          'The machine still shows its state; nothing is sent about it until the silence ends. Survives a restart; journaled.',
        params: NameParams,
        body: SilenceBody,
        response: { 200: SilenceAnswer, 404: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const { minutes, reason } = request.body as { minutes: number; reason?: string };
      return sendAnswer(reply, await silences.set(request.who, name, minutes, reason ?? ''));
    },
  );

  app.delete(
    '/api/machines/:name/silence',
    {
      config: { access: 'operator', machine: 'name' },
      schema: {
        operationId: 'end_silence',
        summary: "End a machine's silence",
        params: NameParams,
        response: { 200: SilenceAnswer, 404: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      return sendAnswer(reply, await silences.end(request.who, name));
    },
  );
}
