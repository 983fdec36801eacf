import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { FailureLimiter } from '../../shared/http/failure-limiter.js';
import { ANONYMOUS_WHO } from '../domain/who.js';
import type { Who } from '../schemas.js';
import type { Access } from './access.js';
import type { Via } from './actor.js';
import type { Invite } from './invites.js';
import type { RelyingParty } from './passkeys.js';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.js';
import { PERSON_NAME, type PersonBody } from './people.js';
import { SignInLimits } from './sign-in-limits.js';

/** What a sign-in or a sign-up answers: a new session's secret for `name`, or why not. */
export type Outcome =
  | { ok: { name: string; secret: string } }
  | { status: 400 | 401 | 404 | 409 | 429; detail: string; retryAfterS?: number };

export const WRONG_PASSWORD = 'Wrong name or password';
export const WRONG_PASSKEY = 'That passkey is not known here';
export const NO_LINK = 'This link is not valid: it was used, replaced, or is older than 24 hours';

/** Passkey sign-in options an address may ask for in a minute. */
const CHALLENGES_PER_MINUTE = 60;

const personWho = (name: string): Who => ({ word: 'board', actor: { kind: 'person', name } });

/**
 * Signing in as a local person (password or passkey) and signing up with a one-time link.
 * Every success starts a new session (never one the browser brought: no fixation) and is
 * journaled; every failure is journaled and counted per name and per address.
 */
export class LocalSignIn {
  private readonly limits: SignInLimits;
  /** Passkey challenges handed out per address (each is a record in the store for 5 minutes). */
  private readonly challenges: FailureLimiter;

  constructor(private readonly access: Access) {
    this.limits = new SignInLimits(() => access.clock.now());
    this.challenges = new FailureLimiter(() => access.clock.now(), CHALLENGES_PER_MINUTE);
    // The dummy hash an unknown name is checked against is made now, not at the first sign-in.
    void verifyPassword(undefined, '');
  }

  async password(address: string, name: string, password: string): Promise<Outcome> {
    const wait = this.limits.blockedFor(address, name);
    if (wait > 0) return tooMany(wait);
    const known = PERSON_NAME.test(name) ? await this.access.people.get(name) : null;
    const person = known?.source === 'local' ? known : null;
    // An unknown name is checked against a dummy hash: the same answer in the same time.
    const ok = await verifyPassword(person?.password, password);
    if (!ok || person === null) {
      return this.refused(address, name, 'password', 401, WRONG_PASSWORD);
    }
    return this.signedIn(person, 'password');
  }

  /** Options with a new challenge (kept in the store, so bounded per address). */
  async passkeyOptions(
    address: string,
    rp: RelyingParty,
  ): Promise<{ options: PublicKeyCredentialRequestOptionsJSON } | Outcome> {
    const wait = this.challenges.blockedFor(address);
    if (wait > 0) return tooMany(wait);
    this.challenges.fail(address);
    return { options: await this.access.passkeys.signInOptions(rp) };
  }

  async passkey(
    address: string,
    rp: RelyingParty,
    response: AuthenticationResponseJSON,
  ): Promise<Outcome> {
    const claimed = this.access.passkeys.claimedName(response);
    const wait = this.limits.blockedFor(address, claimed);
    if (wait > 0) return tooMany(wait);
    const known =
      claimed !== null && PERSON_NAME.test(claimed) ? await this.access.people.get(claimed) : null;
    const person = known?.source === 'local' ? known : null;
    if (!(await this.access.passkeys.signIn(rp, person, response)) || person === null) {
      return this.refused(address, claimed, 'passkey', 401, WRONG_PASSKEY);
    }
    // The counter moved on: kept, so a cloned authenticator's older count is noticed.
    return this.signedIn(person, 'passkey');
  }

  /** The link's person and when it stops working, or why not. */
  async link(address: string, secret: string): Promise<{ invite: Invite } | Outcome> {
    const wait = this.limits.blockedFor(address, null);
    if (wait > 0) return tooMany(wait);
    const invite = await this.access.invites.find(secret);
    if (invite === null || (await this.access.people.get(invite.person)) === null) {
      this.limits.failed(address, null);
      return { status: 404, detail: NO_LINK };
    }
    return { invite };
  }

  async signupPassword(address: string, secret: string, password: string): Promise<Outcome> {
    const found = await this.link(address, secret);
    if (!('invite' in found)) return found;
    const problem = passwordProblem(password);
    if (problem !== null) return { status: 400, detail: problem };
    const hash = await hashPassword(password);
    return this.signUp(found.invite, 'password', (p) => {
      p.password = hash;
    });
  }

  async signupPasskeyOptions(
    address: string,
    rp: RelyingParty,
    secret: string,
  ): Promise<{ options: PublicKeyCredentialCreationOptionsJSON } | Outcome> {
    const found = await this.link(address, secret);
    if (!('invite' in found)) return found;
    const person = await this.access.people.get(found.invite.person);
    if (person === null) return { status: 404, detail: NO_LINK };
    return { options: await this.access.passkeys.registrationOptions(rp, person) };
  }

  async signupPasskey(
    address: string,
    rp: RelyingParty,
    secret: string,
    response: RegistrationResponseJSON,
  ): Promise<Outcome> {
    const found = await this.link(address, secret);
    if (!('invite' in found)) return found;
    const passkey = await this.access.passkeys.register(rp, found.invite.person, response);
    if (passkey === null) {
      this.limits.failed(address, found.invite.person);
      await this.access.note(
        ANONYMOUS_WHO,
        found.invite.person,
        'refused',
        400,
        'sign-up: the passkey was not accepted',
      );
      return { status: 400, detail: 'The passkey was not accepted; try again' };
    }
    return this.signUp(found.invite, 'passkey', (p) => {
      p.passkeys = [...(p.passkeys ?? []), passkey];
    });
  }

  /** Sets the credential, uses the link up and signs the person in. */
  private async signUp(
    invite: Invite,
    via: Via,
    set: (person: PersonBody) => void,
  ): Promise<Outcome> {
    // Used up first: of two requests with one link, only one sets a credential.
    if (!(await this.access.invites.consume(invite))) return { status: 404, detail: NO_LINK };
    const person = await this.access.people.get(invite.person);
    if (person === null) return { status: 404, detail: NO_LINK };
    set(person);
    await this.access.note(personWho(person.name), person.name, 'signed_up', 200, `with a ${via}`);
    return this.signedIn(person, via);
  }

  private async signedIn(person: PersonBody, via: Via): Promise<Outcome> {
    person.signed_in_at = this.access.clock.now();
    await this.access.people.put(person);
    const secret = await this.access.sessions.start(person.name, via, person.bindings);
    await this.access.note(personWho(person.name), person.name, 'signed_in', 200, `via ${via}`);
    return { ok: { name: person.name, secret } };
  }

  private async refused(
    address: string,
    name: string | null,
    via: Via,
    status: 401,
    detail: string,
  ): Promise<Outcome> {
    this.limits.failed(address, name);
    // The name as typed is data: the journal bounds and escapes it like every target.
    await this.access.note(
      ANONYMOUS_WHO,
      name ?? '(unknown)',
      'refused',
      status,
      `sign-in via ${via} from ${address}`,
    );
    return { status, detail };
  }
}

function tooMany(wait: number): Outcome {
  return {
    status: 429,
    detail: 'Too many failed sign-ins; try again later',
    retryAfterS: wait,
  };
}
