import type { Clock } from '../../shared/clock.js';
import type { AuthTable } from './auth-table.js';
import type { BindingView } from './roles.js';

/** Where a person comes from: made on the board, or signed in through a provider or a proxy. */
export type PersonSource = 'local' | 'oidc' | 'header';

/** A person as the store keeps it (by name). Credentials hold only hashes and public keys. */
export interface PersonBody {
  name: string;
  source: PersonSource;
  bindings: BindingView[];
  /** ms since the epoch. */
  created_at: number;
  /** The last sign-in, ms since the epoch, or null. */
  signed_in_at: number | null;
  /** argon2id hash of a local person's password, or absent. */
  password?: string;
  /** A local person's passkeys (WebAuthn credentials: id, public key, counter). */
  passkeys?: StoredPasskey[];
}

export interface StoredPasskey {
  /** base64url credential id. */
  id: string;
  /** base64url COSE public key. */
  public_key: string;
  counter: number;
  transports?: string[];
  created_at: number;
}

/** A person's name: what a provider's username claim or a proxy's header may hold, bounded. */
export const PERSON_NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;

/** The people the board knows, shared by every board on the store. */
export class PersonBook {
  constructor(
    private readonly table: AuthTable,
    private readonly clock: Clock,
  ) {}

  async get(name: string): Promise<PersonBody | null> {
    const r = await this.table.get('person', name, this.clock.now());
    return r === null ? null : (JSON.parse(r.body) as PersonBody);
  }

  async put(person: PersonBody): Promise<void> {
    await this.table.put({
      kind: 'person',
      id: person.name,
      body: JSON.stringify(person),
      expires_at: null,
    });
  }

  async list(): Promise<PersonBody[]> {
    return (await this.table.list('person', this.clock.now())).map(
      (r) => JSON.parse(r.body) as PersonBody,
    );
  }

  /** Drops a person; whether they were there (their sessions and tokens: see Access.remove). */
  async remove(name: string): Promise<boolean> {
    return this.table.remove('person', name);
  }
}
