import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Clock } from '../../shared/clock.js';
import type { AuthTable } from './auth-table.js';
import type { PersonBody, StoredPasskey } from './people.js';
import { secretDigest } from './secrets.js';

/** How long a ceremony may take between its options and its answer. */
const CHALLENGE_MS = 5 * 60_000;
/** Expired auth records are swept once every this many challenges. */
const SWEEP_EVERY = 64;

/** Where the browser is: the relying party's id (the hostname) and the origin it must show. */
export interface RelyingParty {
  id: string;
  origin: string;
}

/** A challenge as the store keeps it: which ceremony, and whose (a registration's person). */
interface ChallengeBody {
  ceremony: 'register' | 'sign_in';
  person: string | null;
}

/** The WebAuthn user handle of a person: their name's bytes (a discoverable credential's key). */
function userHandle(name: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(name, 'utf8'));
}

/** The challenge the browser signed, read from its clientDataJSON, or null. */
function challengeOf(clientDataJSON: unknown): string | null {
  if (typeof clientDataJSON !== 'string' || clientDataJSON.length > 8192) return null;
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    return typeof data.challenge === 'string' ? data.challenge : null;
  } catch {
    return null;
  }
}

/**
 * The two WebAuthn ceremonies (`@simplewebauthn/server`): registering a passkey with a
 * one-time link, and signing in with a discoverable one. Challenges are kept in the store,
 * used once, so any board of a PostgreSQL cluster can finish what another one started.
 */
export class Passkeys {
  /** Challenges handed out since expired records were last swept from the store. */
  private handedOut = 0;

  constructor(
    private readonly table: AuthTable,
    private readonly clock: Clock,
  ) {}

  async registrationOptions(
    rp: RelyingParty,
    person: PersonBody,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const options = await generateRegistrationOptions({
      rpName: 'Panoptes',
      rpID: rp.id,
      userName: person.name,
      userID: userHandle(person.name),
      attestationType: 'none',
      excludeCredentials: (person.passkeys ?? []).map((p) => ({ id: p.id })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    await this.keep(options.challenge, { ceremony: 'register', person: person.name });
    return options;
  }

  /** The new passkey of `person` if the browser's answer is good, else null. */
  async register(
    rp: RelyingParty,
    person: string,
    response: RegistrationResponseJSON,
  ): Promise<StoredPasskey | null> {
    const challenge = await this.take(response.response?.clientDataJSON, 'register', person);
    if (challenge === null) return null;
    try {
      const { verified, registrationInfo } = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: false,
      });
      if (!verified) return null;
      const { credential } = registrationInfo;
      return {
        id: credential.id,
        public_key: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        ...(credential.transports === undefined ? {} : { transports: credential.transports }),
        created_at: this.clock.now(),
      };
    } catch {
      return null;
    }
  }

  async signInOptions(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
    // No allowCredentials: the authenticator offers its discoverable passkeys for this rpID.
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: 'preferred',
    });
    await this.keep(options.challenge, { ceremony: 'sign_in', person: null });
    return options;
  }

  /** The name the user handle claims (read before the person is looked up), or null. */
  claimedName(response: AuthenticationResponseJSON): string | null {
    const handle = response.response?.userHandle;
    if (typeof handle !== 'string' || handle.length > 200) return null;
    return Buffer.from(handle, 'base64url').toString('utf8');
  }

  /**
   * Checks a sign-in against the person's passkey the answer names; on success the passkey's
   * counter is moved on in `person` (the caller stores it) and true is answered.
   */
  async signIn(
    rp: RelyingParty,
    person: PersonBody | null,
    response: AuthenticationResponseJSON,
  ): Promise<boolean> {
    const challenge = await this.take(response.response?.clientDataJSON, 'sign_in', null);
    const passkey = person?.passkeys?.find((p) => p.id === response.id);
    if (challenge === null || passkey === undefined) return false;
    try {
      const { verified, authenticationInfo } = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: {
          id: passkey.id,
          publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
          counter: passkey.counter,
          ...(passkey.transports === undefined ? {} : { transports: passkey.transports as never }),
        },
        requireUserVerification: false,
      });
      if (!verified) return false;
      passkey.counter = authenticationInfo.newCounter;
      return true;
    } catch {
      return false;
    }
  }

  private async keep(challenge: string, body: ChallengeBody): Promise<void> {
    // Unanswered challenges (and old links, sessions) do not pile up in the store.
    this.handedOut += 1;
    if (this.handedOut % SWEEP_EVERY === 0) await this.table.sweep(this.clock.now());
    await this.table.put({
      kind: 'challenge',
      id: secretDigest(challenge),
      body: JSON.stringify(body),
      expires_at: this.clock.now() + CHALLENGE_MS,
    });
  }

  /** The challenge the answer signed if this board (or another) gave it for this ceremony; used up. */
  private async take(
    clientDataJSON: unknown,
    ceremony: ChallengeBody['ceremony'],
    person: string | null,
  ): Promise<string | null> {
    const challenge = challengeOf(clientDataJSON);
    if (challenge === null) return null;
    const id = secretDigest(challenge);
    const record = await this.table.get('challenge', id, this.clock.now());
    if (record === null || !(await this.table.remove('challenge', id))) return null;
    const body = JSON.parse(record.body) as ChallengeBody;
    return body.ceremony === ceremony && body.person === person ? challenge : null;
  }
}
