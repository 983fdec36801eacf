import type { FastifyInstance } from 'fastify';
import { SELECTOR_MAX, type Selector } from '../../shared/selector.js';
import { Type } from '../../shared/typebox.js';
import { ONE_LINE_PATTERN } from '../../shared/wire/free-text.js';
import type { Machine } from '../domain/machine.js';
import type { SelectorSilences } from '../notify/selector-silences.js';
import { SILENCE_MINUTES_MAX } from '../notify/silences.js';
import { Detail } from '../schemas.js';
import { selectorOrIssue, unprocessable } from './selector-query.js';
import { sendAnswer } from './send-answer.js';

const StartBody = Type.Object(
  {
    selector: Type.String({
      minLength: 1,
      maxLength: SELECTOR_MAX,
      description: 'a label selector (site=fra, env in (prod,staging), gpu); not empty',
    }),
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

const SelectorSilence = Type.Object({
  id: Type.String(),
  selector: Type.String(),
  until: Type.String({ description: 'ISO 8601' }),
  reason: Type.String(),
});

const IdParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });

/** GET, POST /api/silences and DELETE /api/silences/{id}: silences naming a label selector. */
export async function selectorSilenceRoutes(
  app: FastifyInstance,
  options: { silences: SelectorSilences; machines: () => Iterable<Machine> },
): Promise<void> {
  const { silences } = options;

  app.get(
    '/api/silences',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'list_selector_silences',
        summary: 'The running silences that name a label selector',
        description:
          "Ending soonest first. A machine's own silence is in its record (silenced_until), not here.",
        response: { 200: Type.Object({ silences: Type.Array(SelectorSilence) }) },
      },
    },
    async (request) => {
      const { scope } = request.actor;
      if (scope.whole('viewer')) return { silences: silences.list() };
      // A scoped actor sees a silence only through a machine in its scope that it silences.
      const inSight = [...options.machines()].filter((m) => scope.sees(m));
      const shown = (s: Selector) => inSight.some((m) => s.matches(m.labels, m.name));
      return { silences: silences.list(shown) };
    },
  );

  app.post(
    '/api/silences',
    {
      config: { access: 'operator', fleet: true },
      schema: {
        operationId: 'silence_selector',
        summary: 'Silence notifications for every machine a label selector selects, for a while',
        description:
          'Covers each machine the selector selects when an event is judged, one that joins the selection meanwhile included; their records show silenced_until. Survives a restart; shared by the boards; journaled. 422 names the position of a bad selector.',
        body: StartBody,
        response: { 201: SelectorSilence, 503: Detail },
      },
    },
    async (request, reply) => {
      const body = request.body as { selector: string; minutes: number; reason?: string };
      const parsed = selectorOrIssue(body.selector, ['body', 'selector']);
      if ('issue' in parsed) return unprocessable(reply, [parsed.issue]);
      if (parsed.selector.everything) {
        return unprocessable(reply, [
          {
            type: 'value_error',
            loc: ['body', 'selector'],
            msg: 'Value error, selector: selects every machine; name what to silence (`name` for all)',
            input: body.selector,
            ctx: { error: 'empty', position: 0 },
          },
        ]);
      }
      const { minutes, reason } = body;
      return sendAnswer(
        reply,
        await silences.start(request.who, parsed.selector, minutes, reason ?? ''),
      );
    },
  );

  app.delete(
    '/api/silences/:id',
    {
      config: { access: 'operator', fleet: true },
      schema: {
        operationId: 'end_selector_silence',
        summary: 'End a selector silence',
        params: IdParams,
        response: { 200: SelectorSilence, 404: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      return sendAnswer(reply, await silences.end(request.who, id));
    },
  );
}
