import type { Machine } from '../domain/machine.js';
import type { StoredIdentity } from './state.js';

/** Where the identities come from: a version that changes with them, and the list. */
export interface IdentitySource {
  identityVersion: number;
  announced(): Machine[];
}

/**
 * Saves the identities of announced machines (name, location, first and last seen, verified,
 * the last accepted key proof; never an overview), so a stopped machine stays on the board,
 * red, across a restart. Writes are serialised and coalesced: callers during a write share the
 * one after it; a version already saved writes nothing.
 */
export class IdentityStore {
  private savedVersion = -1;
  private chain: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;

  constructor(
    private readonly table: { save(identities: readonly StoredIdentity[]): Promise<void> },
    /** The time of a name's last accepted timed key proof (ms), or null. */
    private readonly keyProofAt: (name: string) => number | null = () => null,
  ) {}

  /** Resolves once the identities as they are now are stored (if they changed). */
  save(source: IdentitySource, force = false): Promise<void> {
    if (this.next !== null) return this.next;
    const run = this.chain.then(async () => {
      this.next = null;
      const version = source.identityVersion;
      if (version === this.savedVersion && !force) return;
      await this.table.save(
        source.announced().map((m) => ({
          name: m.name,
          location: m.location,
          first_seen: m.firstSeen,
          last_seen: m.lastSeen,
          verified: m.verified,
          key_proof_at: this.keyProofAt(m.name),
        })),
      );
      this.savedVersion = version;
    });
    this.next = run;
    this.chain = run.catch(() => undefined);
    return run;
  }
}
