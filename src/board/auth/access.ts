import type { Clock } from '../../shared/clock.js';
import type { Journal } from '../domain/journal.js';
import type { Who } from '../schemas.js';
import { TokenBook } from './api-tokens.js';
import type { AuthSettings } from './auth-config.js';
import { NO_AUTH } from './auth-config.js';
import type { AuthTable } from './auth-table.js';
import { InviteBook } from './invites.js';
import { OidcSignIn } from './oidc.js';
import { Passkeys } from './passkeys.js';
import { PersonBook } from './people.js';
import { type Binding, readBindings, Scope } from './roles.js';
import { SessionBook } from './sessions.js';

/**
 * People, their browser sessions and API tokens, and the `auth:` settings: what the guard asks
 * to turn a request into an actor, and what the sign-in, people and token routes change.
 */
export class Access {
  readonly people: PersonBook;
  readonly sessions: SessionBook;
  readonly tokens: TokenBook;
  /** One-time sign-up links of local people. */
  readonly invites: InviteBook;
  /** WebAuthn ceremonies, their challenges kept in the store. */
  readonly passkeys: Passkeys;
  /** Sign-ins with the identity provider under way, and its discovered metadata. */
  readonly oidc: OidcSignIn;
  private current: AuthSettings = NO_AUTH;

  constructor(
    private readonly table: AuthTable,
    readonly clock: Clock,
    private readonly journal: Pick<Journal, 'record'>,
  ) {
    this.people = new PersonBook(table, clock);
    this.sessions = new SessionBook(table, clock);
    this.invites = new InviteBook(table, clock);
    this.passkeys = new Passkeys(table, clock);
    this.oidc = new OidcSignIn(table, clock);
    this.tokens = new TokenBook(table, clock, (maker, bindings) =>
      this.personCovers(maker, bindings),
    );
  }

  settings(): AuthSettings {
    return this.current;
  }

  configure(settings: AuthSettings): void {
    this.current = settings;
    this.sessions.setLimits(settings.sessions);
  }

  /** Whether a person (still there) holds every one of `bindings`. */
  async personCovers(name: string, bindings: readonly Binding[]): Promise<boolean> {
    const person = await this.people.get(name);
    if (person === null) return false;
    return new Scope(readBindings(person.bindings)).covers(bindings);
  }

  /**
   * Drops what expired (sessions past their absolute limit, tokens, links, challenges) every
   * `everyMs`; the answer stops it. A row past its time is refused at once all the same.
   */
  sweepEvery(everyMs: number, onError: (error: unknown) => void): () => void {
    const timer = setInterval(() => {
      this.table.sweep(this.clock.now()).catch(onError);
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Removes a person with every session and token they had; whether they were there. */
  async removePerson(name: string): Promise<boolean> {
    const removed = await this.people.remove(name);
    await this.sessions.endPerson(name);
    await this.tokens.removeMadeBy(name);
    return removed;
  }

  /** Journals a sign-in, sign-out, token or person change (`op` auth; never a secret). */
  async note(
    who: Who,
    target: string,
    outcome: string,
    status: number | null,
    detail: string,
  ): Promise<void> {
    await this.journal.record({ who, op: 'auth', target, outcome, status, detail });
  }
}
