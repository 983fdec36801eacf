import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import type { SubscriptionInput, WebPush } from '../notify/push.js';
import { Detail } from '../schemas.js';
import { sendAnswer } from './send-answer.js';

/** A browser's PushSubscription JSON (what PushSubscription.toJSON() gives). */
const SubscriptionBody = Type.Object({
  endpoint: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      "the push service's URL for this browser (https:); a secret: never answered, logged or journaled",
  }),
  expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  keys: Type.Object({
    p256dh: Type.String({
      minLength: 1,
      maxLength: 128,
      description: "the browser's P-256 public key, base64url (65 bytes)",
    }),
    auth: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "the browser's auth secret, base64url (16 bytes)",
    }),
  }),
});

const IdParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });

/** What the board's service worker sends when the browser's push service renewed its subscription. */
const RenewBody = Type.Object({
  auth: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "the old subscription's auth secret (base64url): proof the caller held it",
  }),
  subscription: SubscriptionBody,
});
const IdAnswer = Type.Object({ id: Type.String() });

/**
 * GET /api/push/key, POST /api/push/subscriptions, DELETE /api/push/subscriptions/{id}, and
 * POST /api/push/subscriptions/{id}/renew (the service worker's, without a token).
 */
export async function pushRoutes(app: FastifyInstance, options: { push: WebPush }): Promise<void> {
  const { push } = options;

  app.get(
    '/api/push/key',
    {
      // A public key, for any signed-in role that subscribes its browser.
      config: { access: 'viewer' },
      schema: {
        operationId: 'get_push_key',
        summary: "The board's VAPID application server key, for PushManager.subscribe",
        description:
          'Made once and kept in the store: every board of a store answers the same key. 409 while push.subject is not set.',
        response: {
          200: Type.Object({
            public_key: Type.String({ description: 'base64url, an uncompressed P-256 point' }),
          }),
          409: Detail,
          503: Detail,
        },
      },
    },
    async (_request, reply) => sendAnswer(reply, await push.publicKey()),
  );

  app.post(
    '/api/push/subscriptions',
    {
      config: { access: 'viewer', fleet: true },
      schema: {
        operationId: 'subscribe_push',
        summary: "Subscribe a browser to the board's Web Push messages",
        description:
          'The same endpoint again answers the same id (its keys renewed). Endpoints must be https: unless push.allow_http_endpoints. ' +
          '409 while push.subject is not set, or when push.max_subscriptions are kept.',
        body: SubscriptionBody,
        response: { 200: IdAnswer, 409: Detail, 503: Detail },
      },
    },
    async (request, reply) =>
      sendAnswer(reply, await push.subscribe(request.who, request.body as SubscriptionInput)),
  );

  app.delete(
    '/api/push/subscriptions/:id',
    {
      config: { access: 'viewer', fleet: true },
      schema: {
        operationId: 'unsubscribe_push',
        summary: 'Delete a push subscription',
        params: IdParams,
        response: { 200: IdAnswer, 404: Detail, 409: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      return sendAnswer(reply, await push.unsubscribe(request.who, id));
    },
  );

  app.post(
    '/api/push/subscriptions/:id/renew',
    {
      config: { access: 'open' },
      schema: {
        operationId: 'renew_push',
        summary: "Replace a subscription the browser's push service renewed (the service worker)",
        description:
          "Sent by the board's service worker on pushsubscriptionchange, which has no board token: " +
          "the old subscription's auth secret proves the caller held it. The new subscription replaces it " +
          '(checked as POST /api/push/subscriptions checks one) and its id is answered. 404 for an unknown id ' +
          'or another auth secret; 409 while push.subject is not set.',
        params: IdParams,
        body: RenewBody,
        response: { 200: IdAnswer, 404: Detail, 409: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const body = request.body as { auth: string; subscription: SubscriptionInput };
      return sendAnswer(reply, await push.renew(id, body.auth, body.subscription));
    },
  );
}
