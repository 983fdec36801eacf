import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../shared/http/errors.js';
import { SELECTOR_MAX } from '../../shared/selector.js';
import { Type } from '../../shared/typebox.js';
import { NAME_PATTERN } from '../../shared/wire/common.js';
import type { Access } from '../auth/access.js';
import type { Actor } from '../auth/actor.js';
import type { TokenBody } from '../auth/api-tokens.js';
import type { Binding, Role } from '../auth/roles.js';
import { Detail } from '../schemas.js';
import { selectorOrIssue, unprocessable } from './selector-query.js';

/** The longest a token may be made for: 365 days (absent: it lasts until deleted). */
export const TOKEN_LIFETIME_MAX_S = 365 * 86_400;
/** How many tokens one maker may hold at once (the store is shared; nobody fills it). */
export const TOKENS_PER_MAKER_MAX = 100;

const RoleName = Type.Union([
  Type.Literal('viewer'),
  Type.Literal('operator'),
  Type.Literal('admin'),
]);
const Iso = (what: string) =>
  Type.Union([Type.String(), Type.Null()], { description: `${what}: ISO 8601, or null` });

const TokenRequest = Type.Object(
  {
    name: Type.String({
      pattern: NAME_PATTERN,
      description: 'what the journal names it by (unique on the board)',
    }),
    role: RoleName,
    selector: Type.Optional(
      Type.Union([Type.String({ maxLength: SELECTOR_MAX }), Type.Null()], {
        description: 'the machines it holds its role over, by board labels (absent: every machine)',
      }),
    ),
    // No null: the validator would read 0 as null, and "0 seconds" as "for ever".
    expires_in_s: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: TOKEN_LIFETIME_MAX_S,
        description: `seconds it lasts, 1 to ${TOKEN_LIFETIME_MAX_S} (absent: until deleted)`,
      }),
    ),
  },
  { additionalProperties: false },
);

const Made = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: RoleName,
  selector: Type.Union([Type.String(), Type.Null()]),
  expires_at: Iso('when it stops working'),
  token: Type.String({ description: 'the token (pnp_…): shown this once, never again' }),
});

const TokenItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: RoleName,
  selector: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ description: 'ISO 8601' }),
  expires_at: Iso('when it stops working'),
  last_used_at: Iso('its last use (written at most once a minute)'),
});

const IdParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function item(t: TokenBody) {
  const b = t.bindings[0];
  return {
    id: t.id,
    name: t.name,
    role: b?.role ?? 'viewer',
    selector: b?.selector ?? null,
    created_at: new Date(t.created_at).toISOString(),
    expires_at: iso(t.expires_at),
    last_used_at: iso(t.last_used_at),
  };
}

/**
 * Whose tokens an actor makes: a person's own, the board's (null), or a token's maker's;
 * undefined when the actor's token was deleted meanwhile.
 */
async function makerOf(access: Access, actor: Actor): Promise<string | null | undefined> {
  if (actor.tokenId !== null) return (await access.tokens.get(actor.tokenId))?.maker;
  return actor.via === 'board_token' ? null : actor.name;
}

/**
 * Which tokens an actor may list and delete: an admin over the whole board every one, anyone
 * else those their person made (a token made with the board token belongs to admins only).
 */
function mine(actor: Actor, maker: string | null): (t: TokenBody) => boolean {
  if (actor.scope.whole('admin')) return () => true;
  if (maker === null) return () => false;
  return (t) => t.maker === maker;
}

const describeBinding = (role: Role, selector: string | null) =>
  `${role} over ${selector === null ? 'every machine' : selector}`;

/** POST /api/tokens, GET /api/tokens, DELETE /api/tokens/{id} (DESIGN 15: API tokens). */
export async function tokenRoutes(
  app: FastifyInstance,
  options: { access: Access },
): Promise<void> {
  const { access } = options;
  const owned = async (request: FastifyRequest) => {
    const maker = await makerOf(access, request.actor);
    if (maker === undefined) throw errors.notAuthenticated();
    return { maker, visible: mine(request.actor, maker) };
  };

  app.post(
    '/api/tokens',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'create_token',
        summary: 'Make an API token (for scripts and MCP): shown once, kept as its SHA-256 only',
        description:
          'Nobody makes a token wider than their own role bindings (403), a token included. ' +
          'Journaled (op auth, target the token name).',
        body: TokenRequest,
        response: { 201: Made, 401: Detail, 403: Detail, 409: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const body = request.body as {
        name: string;
        role: Role;
        selector?: string | null;
        expires_in_s?: number;
      };
      let selector: Binding['selector'] = null;
      if (body.selector !== undefined && body.selector !== null) {
        const parsed = selectorOrIssue(body.selector, ['body', 'selector']);
        if ('issue' in parsed) return unprocessable(reply, [parsed.issue]);
        selector = parsed.selector.everything ? null : parsed.selector;
      }
      const wanted: Binding = { role: body.role, selector };
      const what = describeBinding(wanted.role, selector?.text ?? null);
      const { actor } = request;
      const { maker } = await owned(request);
      let refusal: string | null = null;
      if (!actor.scope.covers([wanted])) {
        refusal = `A token cannot hold more than its maker: ${what}`;
      } else if (maker !== null && !(await access.personCovers(maker, [wanted]))) {
        refusal = `A token cannot hold more than its maker's person keeps on the board: ${what}`;
      }
      if (refusal !== null) {
        await access.note(actor.who, body.name, 'refused', 403, refusal);
        throw errors.forbidden(refusal);
      }
      const live = await access.tokens.list();
      if (live.some((t) => t.body.name === body.name))
        throw errors.conflict(
          `A token named '${body.name}' exists; delete it or pick another name`,
        );
      if (live.filter((t) => t.body.maker === maker).length >= TOKENS_PER_MAKER_MAX)
        throw errors.conflict(`At most ${TOKENS_PER_MAKER_MAX} tokens a maker; delete one first`);
      const made = await access.tokens.create(
        body.name,
        [wanted],
        maker,
        body.expires_in_s ?? null,
      );
      const expires = iso(made.body.expires_at);
      await access.note(
        actor.who,
        body.name,
        'created',
        201,
        `token ${made.body.id}: ${what}, expires ${expires ?? 'never'}`,
      );
      const view = item(made.body);
      return reply.code(201).send({
        id: view.id,
        name: view.name,
        role: view.role,
        selector: view.selector,
        expires_at: view.expires_at,
        token: made.token,
      });
    },
  );

  app.get(
    '/api/tokens',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'list_tokens',
        summary:
          'The API tokens (never a token itself): an admin over the whole board sees all, anyone else their own',
        response: { 200: Type.Object({ tokens: Type.Array(TokenItem) }), 401: Detail },
      },
    },
    async (request) => {
      const { visible } = await owned(request);
      const tokens = (await access.tokens.list()).map((t) => t.body).filter(visible);
      tokens.sort((a, b) => a.created_at - b.created_at || (a.name < b.name ? -1 : 1));
      return { tokens: tokens.map(item) };
    },
  );

  app.delete(
    '/api/tokens/:id',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'delete_token',
        summary: 'Delete an API token: it stops working at once (on other boards within 2 s)',
        params: IdParams,
        response: {
          200: Type.Object({ id: Type.String() }),
          401: Detail,
          404: Detail,
          503: Detail,
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const { visible } = await owned(request);
      const token = await access.tokens.get(id);
      // Someone else's token is as absent as one that never was.
      if (token === null || !visible(token)) throw errors.notFound(`No token with id '${id}'`);
      const gone = await access.tokens.remove(id);
      if (gone === null) throw errors.notFound(`No token with id '${id}'`);
      await access.note(request.actor.who, gone.name, 'deleted', 200, `token ${gone.id}`);
      return { id };
    },
  );
}
