import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '../../shared/typebox.js';
import type { Access } from '../auth/access.js';
import { clearedCookie } from '../auth/cookies.js';
import { bindingView } from '../auth/roles.js';
import { Detail } from '../schemas.js';

const Role = Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin')]);

/** GET /api/me's answer. */
export const MeView = Type.Object({
  name: Type.String(),
  via: Type.Union(
    ['oidc', 'passkey', 'password', 'header', 'token', 'board_token'].map((v) => Type.Literal(v)),
  ),
  bindings: Type.Array(
    Type.Object({ role: Role, selector: Type.Union([Type.String(), Type.Null()]) }),
  ),
});

/** GET /api/me (who the caller is and what they may do) and POST /auth/logout. */
export async function meRoutes(
  app: FastifyInstance,
  options: {
    access: Access;
    secure: () => boolean;
    /** Where to sign out at the identity provider too (a person who signed in there), or null. */
    providerLogout?: (request: FastifyRequest) => Promise<string | null>;
  },
): Promise<void> {
  app.get(
    '/api/me',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'get_me',
        summary: 'Who the caller is: name, how they signed in, and their role bindings',
        response: { 200: MeView },
      },
    },
    async (request) => ({
      name: request.actor.name,
      via: request.actor.via,
      bindings: request.actor.scope.bindings.map(bindingView),
    }),
  );
  app.post(
    '/auth/logout',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'sign_out',
        summary: 'Ends the browser session (its cookie is dropped); journaled',
        response: {
          200: Type.Object({ ok: Type.Boolean(), logout_url: Type.Optional(Type.String()) }),
          403: Detail,
        },
      },
    },
    async (request, reply) => {
      const { actor } = request;
      if (actor.session !== null) {
        await options.access.sessions.end(actor.session);
        await options.access.note(actor.who, actor.name, 'signed_out', 200, `via ${actor.via}`);
      }
      reply.header('set-cookie', clearedCookie(options.secure()));
      const logoutUrl = (await options.providerLogout?.(request)) ?? null;
      return logoutUrl === null ? { ok: true } : { ok: true, logout_url: logoutUrl };
    },
  );
}

/** GET /auth/methods: how one may sign in here (the sign-in page asks before anyone is known). */
export async function methodRoutes(
  app: FastifyInstance,
  options: { access: Access },
): Promise<void> {
  app.get(
    '/auth/methods',
    {
      config: { access: 'open' },
      schema: {
        operationId: 'sign_in_methods',
        summary:
          'How one signs in on this board: the identity provider (its button), passkeys, passwords, the board token',
        response: {
          200: Type.Object({
            oidc: Type.Union([Type.Object({ name: Type.String() }), Type.Null()]),
            passkey: Type.Boolean(),
            password: Type.Boolean(),
            board_token: Type.Boolean(),
          }),
        },
      },
    },
    async () => {
      const { oidc } = options.access.settings();
      return {
        oidc: oidc === null ? null : { name: oidc.name },
        passkey: true,
        password: true,
        board_token: true,
      };
    },
  );
}
