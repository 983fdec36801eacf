import type { FastifyInstance } from 'fastify';
import { SELECTOR_MAX, type Selector } from '../../shared/selector.js';
import { Type } from '../../shared/typebox.js';
import { boardPick } from '../auth/scope-pick.js';
import type { Board } from '../domain/board.js';
import { BoardView, Detail, ForgetAnswer, NameParams } from '../schemas.js';
import { selectorOrIssue, unprocessable } from './selector-query.js';
import { sendAnswer } from './send-answer.js';

/** GET /api/board and DELETE /api/machines/{name}. */
export async function boardRoutes(app: FastifyInstance, options: { board: Board }): Promise<void> {
  const { board } = options;

  app.get(
    '/api/board',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'get_board',
        summary: 'Every machine, as of the last sweep',
        description:
          'Sorted by name. Supports ETag / If-None-Match. Contains no token or key. With ?selector= (env=prod,site in (fra,ams),!retired), only the machines it selects.',
        querystring: Type.Object({
          selector: Type.Optional(
            Type.String({ maxLength: SELECTOR_MAX, description: 'a label selector' }),
          ),
        }),
        response: {
          200: BoardView,
          304: Type.Null({ description: 'Not modified since the ETag' }),
        },
      },
    },
    async (request, reply) => {
      const { selector } = request.query as { selector?: string };
      let chosen: Selector | null = null;
      if (selector !== undefined && selector.trim() !== '') {
        const parsed = selectorOrIssue(selector, ['query', 'selector']);
        if ('issue' in parsed) return unprocessable(reply, [parsed.issue]);
        chosen = parsed.selector;
      }
      // Only what the actor's scope sees: its own view (and ETag), never another scope's body.
      const pick = boardPick(request.actor.scope, chosen);
      const { bytes, etag, release } =
        pick === null ? board.registry.view() : board.registry.pickedView(pick);
      reply.header('etag', etag).header('cache-control', 'no-cache');
      if (request.headers['if-none-match'] === etag) {
        release();
        return reply.code(304).send();
      }
      // Given back once the last byte has been written ('finish'), not on a response cut off
      // ('close' alone), whose write may not be over: that memory is then not used again.
      reply.raw.once('finish', release);
      return reply.type('application/json; charset=utf-8').send(bytes);
    },
  );

  app.delete(
    '/api/machines/:name',
    {
      config: { access: 'admin', machine: 'name' },
      schema: {
        operationId: 'delete_machine',
        summary: 'Forget an announced machine for good',
        description: 'Configured machines are refused (409): remove them from the config file.',
        params: NameParams,
        response: { 200: ForgetAnswer, 404: Detail, 409: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const answer = await board.forget(request.who, name);
      return sendAnswer(reply, answer);
    },
  );
}
