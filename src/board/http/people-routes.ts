import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ValidationIssue } from '../../shared/http/pydantic.js';
import { Type } from '../../shared/typebox.js';
import type { Change, LocalPeople } from '../auth/local-people.js';
import { type Binding, type BindingView, readBindings } from '../auth/roles.js';
import { Detail } from '../schemas.js';
import { selectorOrIssue, unprocessable } from './selector-query.js';

const Role = Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin')]);
const BindingSchema = Type.Object(
  {
    role: Role,
    selector: Type.Optional(
      Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], {
        description: 'a label selector over board labels; absent or null: every machine',
      }),
    ),
  },
  { additionalProperties: false },
);
const Bindings = Type.Array(BindingSchema, { maxItems: 32 });
const BindingOut = Type.Object({ role: Role, selector: Type.Union([Type.String(), Type.Null()]) });

const PersonName = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$',
  description: 'letters, digits and . _ @ + -, at most 128',
});
const PersonParams = Type.Object({ name: PersonName });

const PersonOut = Type.Object({
  name: Type.String(),
  source: Type.Union([Type.Literal('local'), Type.Literal('oidc'), Type.Literal('header')]),
  bindings: Type.Array(BindingOut),
  created_at: Type.String({ description: 'ISO 8601' }),
  signed_in_at: Type.Union([Type.String({ description: 'ISO 8601' }), Type.Null()]),
  passkeys: Type.Integer({ minimum: 0, description: 'how many passkeys they registered' }),
  password: Type.Boolean({ description: 'whether they set a password' }),
});

const Link = {
  link: Type.String({
    description: "the one-time link: <public_url or the request's origin>/#signup=<secret>",
  }),
  link_expires_at: Type.String({ description: 'ISO 8601; 24 hours from now' }),
};

/** The bindings a body gives, or the 422 issue naming the selector and where it is wrong. */
function bindingsOf(
  views: { role: BindingView['role']; selector?: string | null }[],
): { bindings: Binding[] } | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  views.forEach((v, i) => {
    if (typeof v.selector !== 'string' || v.selector.trim() === '') return;
    const parsed = selectorOrIssue(v.selector, ['body', 'bindings', i, 'selector']);
    if ('issue' in parsed) issues.push(parsed.issue);
  });
  if (issues.length > 0) return { issues };
  return {
    bindings: readBindings(views.map((v) => ({ role: v.role, selector: v.selector ?? null }))),
  };
}

function send<T>(reply: FastifyReply, change: Change<T>, ok: (value: T) => unknown, code = 200) {
  if ('ok' in change) return reply.code(code).send(ok(change.ok));
  return reply.code(change.status).send({ detail: change.detail });
}

/**
 * The people of the board (admin only): list, add (with a one-time link), change bindings,
 * remove, and a new link. Nobody gives more than they hold: that is the scope's to say (403).
 */
export async function peopleRoutes(
  app: FastifyInstance,
  options: { people: LocalPeople; origin: (request: FastifyRequest) => string },
): Promise<void> {
  const { people, origin } = options;

  app.get(
    '/api/people',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'list_people',
        summary:
          'The people of the board, their role bindings and how they can sign in (no secret)',
        response: { 200: Type.Object({ people: Type.Array(PersonOut) }) },
      },
    },
    async () => ({ people: await people.list() }),
  );

  app.post(
    '/api/people',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'add_person',
        summary: 'Add a local person; the answer holds their one-time sign-up link (24 h)',
        description:
          'The person opens the link and registers a passkey or sets a password. Bindings wider than the caller’s are refused (403). Journaled.',
        body: Type.Object(
          { name: PersonName, bindings: Bindings },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ name: Type.String(), bindings: Type.Array(BindingOut), ...Link }),
          403: Detail,
          409: Detail,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as { name: string; bindings: BindingView[] };
      const read = bindingsOf(body.bindings);
      if ('issues' in read) return unprocessable(reply, read.issues);
      const { actor } = request;
      const change = await people.add(
        actor.who,
        actor.scope,
        body.name,
        read.bindings,
        origin(request),
      );
      return send(
        reply,
        change,
        (v) => ({
          name: v.person.name,
          bindings: v.person.bindings,
          link: v.link,
          link_expires_at: v.link_expires_at,
        }),
        201,
      );
    },
  );

  app.put(
    '/api/people/:name',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'set_person_bindings',
        summary: "Replace a person's role bindings; their sessions end",
        params: PersonParams,
        body: Type.Object({ bindings: Bindings }, { additionalProperties: false }),
        response: { 200: PersonOut, 403: Detail, 404: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const read = bindingsOf((request.body as { bindings: BindingView[] }).bindings);
      if ('issues' in read) return unprocessable(reply, read.issues);
      const { actor } = request;
      return send(
        reply,
        await people.setBindings(actor.who, actor.scope, name, read.bindings),
        (v) => v,
      );
    },
  );

  app.delete(
    '/api/people/:name',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'remove_person',
        summary: 'Remove a person: their sessions, API tokens and sign-up link end with them',
        params: PersonParams,
        response: { 200: Type.Object({ name: Type.String() }), 404: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      return send(reply, await people.remove(request.actor.who, name), (v) => v);
    },
  );

  app.post(
    '/api/people/:name/link',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'make_person_link',
        summary: 'A new one-time sign-up link for a local person (the one before stops working)',
        params: PersonParams,
        response: { 200: Type.Object(Link), 404: Detail, 409: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      return send(reply, await people.link(request.actor.who, name, origin(request)), (v) => v);
    },
  );
}
