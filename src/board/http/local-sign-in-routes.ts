import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '../../shared/typebox.js';
import type { Access } from '../auth/access.js';
import { sessionCookie } from '../auth/cookies.js';
import type { LocalSignIn, Outcome } from '../auth/local-sign-in.js';
import type { RelyingParty } from '../auth/passkeys.js';
import { PASSWORD_MAX } from '../auth/passwords.js';
import { sameOrigin } from '../auth/same-origin.js';
import { Detail } from '../schemas.js';

/** Where the board is, as the browser sees it: `public_url`, or the request's own origin. */
export interface BoardPlace {
  secure(): boolean;
  publicOrigin(): string | null;
}

/** The origin a browser on this request is at (a sign-up link starts with it). */
export function requestOrigin(request: FastifyRequest, place: BoardPlace): string {
  const configured = place.publicOrigin();
  if (configured !== null) return configured;
  const scheme = place.secure() ? 'https' : request.protocol;
  return `${scheme}://${request.headers.host ?? 'localhost'}`;
}

/** WebAuthn's relying party: the board's hostname and the origin the browser must report. */
export function relyingParty(request: FastifyRequest, place: BoardPlace): RelyingParty {
  const origin = requestOrigin(request, place);
  return { id: new URL(origin).hostname.replace(/^\[|\]$/g, ''), origin };
}

/** A link as given (the whole address, or the secret after `#signup=`): its secret. */
function secretOf(link: string): string {
  const at = link.lastIndexOf('signup=');
  return at < 0 ? link.trim() : link.slice(at + 'signup='.length).trim();
}

const LinkField = Type.String({
  maxLength: 2048,
  description: 'the one-time link, or the secret after #signup= in it',
});
const WebAuthnJson = Type.Object(
  {},
  { additionalProperties: true, description: "the browser's WebAuthn answer (JSON)" },
);
const Options = Type.Object(
  {},
  { additionalProperties: true, description: 'WebAuthn options for the browser (JSON)' },
);
const Signed = Type.Object({ name: Type.String() });
const Failures = { 400: Detail, 401: Detail, 403: Detail, 404: Detail, 429: Detail };

/**
 * The local sign-in routes (DESIGN 15): password and passkey sign-in, and sign-up with a
 * one-time link. All open; a success answers `{name}` with a new session's cookie.
 */
export async function localSignInRoutes(
  app: FastifyInstance,
  options: { access: Access; signIn: LocalSignIn; place: BoardPlace },
): Promise<void> {
  const { signIn, place, access } = options;

  /** Sends an outcome: the cookie of a new session, or the refusal. */
  const answer = (reply: FastifyReply, outcome: Outcome) => {
    if ('ok' in outcome) {
      const maxAgeS = access.settings().sessions.absoluteMs / 1000;
      reply.header('set-cookie', sessionCookie(outcome.ok.secret, place.secure(), maxAgeS));
      return reply.code(200).send({ name: outcome.ok.name });
    }
    if (outcome.retryAfterS !== undefined) reply.header('retry-after', String(outcome.retryAfterS));
    return reply.code(outcome.status).send({ detail: outcome.detail });
  };
  // Signing someone in from another site (login CSRF): a browser's Origin must be the board's.
  const crossSite = (request: FastifyRequest, reply: FastifyReply) => {
    if (request.headers.origin === undefined) return false;
    if (sameOrigin(request, place.publicOrigin(), place.secure())) return false;
    reply.code(403).send({ detail: 'Cross-site request refused' });
    return true;
  };
  const open = (operationId: string, summary: string, body: unknown, ok: unknown) => ({
    config: { access: 'open' as const },
    schema: {
      operationId,
      summary,
      ...(body === null ? {} : { body }),
      response: { 200: ok, ...Failures },
    },
  });

  app.post(
    '/auth/password',
    open(
      'sign_in_password',
      'Sign in with a name and password; a new session cookie (failures rate-limited per name and address)',
      Type.Object(
        {
          name: Type.String({ maxLength: 200 }),
          password: Type.String({ maxLength: PASSWORD_MAX * 4 }),
        },
        { additionalProperties: false },
      ),
      Signed,
    ),
    async (request, reply) => {
      if (crossSite(request, reply)) return reply;
      const { name, password } = request.body as { name: string; password: string };
      return answer(reply, await signIn.password(request.clientAddress, name, password));
    },
  );

  app.post(
    '/auth/passkey/options',
    open(
      'passkey_sign_in_options',
      'WebAuthn options to sign in with a passkey (discoverable; the challenge kept by the board)',
      null,
      Options,
    ),
    async (request, reply) => {
      const made = await signIn.passkeyOptions(request.clientAddress, relyingParty(request, place));
      return 'options' in made ? made.options : answer(reply, made);
    },
  );

  app.post(
    '/auth/passkey',
    open(
      'sign_in_passkey',
      "Sign in with the browser's passkey answer; a new session cookie",
      Type.Object({ response: WebAuthnJson }, { additionalProperties: false }),
      Signed,
    ),
    async (request, reply) => {
      if (crossSite(request, reply)) return reply;
      const { response } = request.body as { response: AuthenticationResponseJSON };
      const rp = relyingParty(request, place);
      return answer(reply, await signIn.passkey(request.clientAddress, rp, response));
    },
  );

  app.post(
    '/auth/signup',
    open(
      'sign_up_link',
      'Whose a one-time sign-up link is and until when (404: used, replaced or expired)',
      Type.Object({ link: LinkField }, { additionalProperties: false }),
      Type.Object({ name: Type.String(), expires_at: Type.String({ description: 'ISO 8601' }) }),
    ),
    async (request, reply) => {
      const { link } = request.body as { link: string };
      const found = await signIn.link(request.clientAddress, secretOf(link));
      if (!('invite' in found)) return answer(reply, found);
      const { person, expiresAt } = found.invite;
      return { name: person, expires_at: new Date(expiresAt).toISOString() };
    },
  );

  app.post(
    '/auth/signup/password',
    open(
      'sign_up_password',
      'Set a password with a one-time link (at least 12 characters); the link is used up and a session starts',
      Type.Object(
        { link: LinkField, password: Type.String({ maxLength: PASSWORD_MAX * 4 }) },
        { additionalProperties: false },
      ),
      Signed,
    ),
    async (request, reply) => {
      if (crossSite(request, reply)) return reply;
      const { link, password } = request.body as { link: string; password: string };
      return answer(
        reply,
        await signIn.signupPassword(request.clientAddress, secretOf(link), password),
      );
    },
  );

  app.post(
    '/auth/signup/passkey/options',
    open(
      'sign_up_passkey_options',
      'WebAuthn options to register a passkey with a one-time link',
      Type.Object({ link: LinkField }, { additionalProperties: false }),
      Options,
    ),
    async (request, reply) => {
      const rp = relyingParty(request, place);
      const made = await signIn.signupPasskeyOptions(
        request.clientAddress,
        rp,
        secretOf(link(request)),
      );
      return 'options' in made ? made.options : answer(reply, made);
    },
  );

  app.post(
    '/auth/signup/passkey',
    open(
      'sign_up_passkey',
      "Register the browser's passkey with a one-time link; the link is used up and a session starts",
      Type.Object({ link: LinkField, response: WebAuthnJson }, { additionalProperties: false }),
      Signed,
    ),
    async (request, reply) => {
      if (crossSite(request, reply)) return reply;
      const { response } = request.body as { response: RegistrationResponseJSON };
      const rp = relyingParty(request, place);
      return answer(
        reply,
        await signIn.signupPasskey(request.clientAddress, rp, secretOf(link(request)), response),
      );
    },
  );
}

function link(request: FastifyRequest): string {
  return (request.body as { link: string }).link;
}
