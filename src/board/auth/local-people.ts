import type { Who } from '../schemas.js';
import type { Access } from './access.js';
import { PERSON_NAME, type PersonBody, type PersonSource } from './people.js';
import { type Binding, type BindingView, bindingView, type Scope } from './roles.js';

/** A person as GET /api/people shows them: what they hold and how they can sign in, no secret. */
export interface PersonView {
  name: string;
  source: PersonSource;
  bindings: BindingView[];
  created_at: string;
  signed_in_at: string | null;
  /** How many passkeys they registered. */
  passkeys: number;
  /** Whether they set a password. */
  password: boolean;
}

/** A one-time link just made: its address (secret in the fragment) and when it stops working. */
export interface MadeLink {
  link: string;
  link_expires_at: string;
}

/** What a change answers: done, or why not (the route's status and detail). */
export type Change<T> = { ok: T } | { status: 403 | 404 | 409; detail: string };

export function personView(p: PersonBody): PersonView {
  return {
    name: p.name,
    source: p.source,
    bindings: p.bindings,
    created_at: new Date(p.created_at).toISOString(),
    signed_in_at: p.signed_in_at === null ? null : new Date(p.signed_in_at).toISOString(),
    passkeys: p.passkeys?.length ?? 0,
    password: p.password !== undefined,
  };
}

/** The link a secret is handed out in: in the fragment, so it is in no request line or log. */
export function signupLink(origin: string, secret: string): string {
  return `${origin.replace(/\/+$/, '')}/#signup=${secret}`;
}

const noSuch = (name: string) => ({ status: 404 as const, detail: `No person named '${name}'` });
const tooWide = {
  status: 403 as const,
  detail: 'Nobody gives more than they hold: these bindings are wider than yours',
};

/**
 * People made on the board (DESIGN 15 "Local people"): added, changed, removed and handed a
 * one-time link, by an admin on the page or by `users` on the command line. Each change is
 * journaled (`op` auth, target the person's name) when a journal is there to write it.
 */
export class LocalPeople {
  constructor(private readonly access: Access) {}

  async list(): Promise<PersonView[]> {
    return (await this.access.people.list()).map(personView);
  }

  /** Adds a local person and makes their first link. */
  async add(
    who: Who,
    scope: Scope,
    name: string,
    bindings: readonly Binding[],
    origin: string,
  ): Promise<Change<{ person: PersonView } & MadeLink>> {
    if (!PERSON_NAME.test(name)) return { status: 409, detail: `Not a person's name: '${name}'` };
    if (!scope.covers(bindings)) return tooWide;
    if ((await this.access.people.get(name)) !== null)
      return { status: 409, detail: `A person named '${name}' is already there` };
    const person: PersonBody = {
      name,
      source: 'local',
      bindings: bindings.map(bindingView),
      created_at: this.access.clock.now(),
      signed_in_at: null,
    };
    await this.access.people.put(person);
    const made = await this.makeLink(name, origin);
    await this.access.note(who, name, 'person_added', 201, `bindings ${describe(person.bindings)}`);
    return { ok: { person: personView(person), ...made } };
  }

  /** Replaces a person's bindings; their sessions end (they sign in again with the new ones). */
  async setBindings(
    who: Who,
    scope: Scope,
    name: string,
    bindings: readonly Binding[],
  ): Promise<Change<PersonView>> {
    const person = await this.access.people.get(name);
    if (person === null) return noSuch(name);
    if (!scope.covers(bindings)) return tooWide;
    person.bindings = bindings.map(bindingView);
    await this.access.people.put(person);
    const ended = await this.access.sessions.endPerson(name);
    await this.access.note(
      who,
      name,
      'person_changed',
      200,
      `bindings ${describe(person.bindings)}; ${ended} session(s) ended`,
    );
    return { ok: personView(person) };
  }

  /** Removes a person: their sessions, tokens and links go with them. */
  async remove(who: Who, name: string): Promise<Change<{ name: string }>> {
    if (!(await this.access.removePerson(name))) return noSuch(name);
    await this.access.invites.dropOf(name);
    await this.access.note(who, name, 'person_removed', 200, 'sessions and tokens ended');
    return { ok: { name } };
  }

  /** A new one-time link for a local person (the one before stops working). */
  async link(who: Who, name: string, origin: string): Promise<Change<MadeLink>> {
    const person = await this.access.people.get(name);
    if (person === null) return noSuch(name);
    if (person.source !== 'local')
      return { status: 409, detail: `'${name}' signs in through ${person.source}, not a link` };
    const made = await this.makeLink(name, origin);
    await this.access.note(who, name, 'link_made', 200, `valid until ${made.link_expires_at}`);
    return { ok: made };
  }

  private async makeLink(name: string, origin: string): Promise<MadeLink> {
    const { secret, expiresAt } = await this.access.invites.make(name);
    return {
      link: signupLink(origin, secret),
      link_expires_at: new Date(expiresAt).toISOString(),
    };
  }
}

function describe(bindings: readonly BindingView[]): string {
  if (bindings.length === 0) return 'none';
  return bindings
    .map((b) => (b.selector === null ? b.role : `${b.role} (${b.selector})`))
    .join(', ');
}
