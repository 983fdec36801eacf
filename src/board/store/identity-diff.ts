import type { StoredIdentity } from './state.js';

/**
 * What a save of the identities must write: the ones that differ from what the store holds, and
 * the names that are gone. A sweep that changed nothing writes nothing; one new name, one row.
 * Identities are compared field by field (each save's are new objects, never changed after):
 * as JSON text, a save of 15,000 held the board's thread 20–37 ms.
 */
export class IdentityDiff {
  private saved = new Map<string, StoredIdentity>();

  /** Notes what the store holds (read at start). */
  loaded(identities: readonly StoredIdentity[]): void {
    this.saved = new Map(identities.map((i) => [i.name, { ...i }]));
  }

  /** The writes that bring the store to `next`; call `commit` once they are committed. */
  against(next: readonly StoredIdentity[]): {
    upsert: StoredIdentity[];
    remove: string[];
    commit: () => void;
  } {
    const now = new Map<string, StoredIdentity>();
    const upsert: StoredIdentity[] = [];
    for (const identity of next) {
      now.set(identity.name, identity);
      const held = this.saved.get(identity.name);
      if (held === undefined || !same(held, identity)) upsert.push(identity);
    }
    const remove = [...this.saved.keys()].filter((name) => !now.has(name));
    return {
      upsert,
      remove,
      commit: () => {
        this.saved = now;
      },
    };
  }
}

function same(a: StoredIdentity, b: StoredIdentity): boolean {
  return (
    a.location === b.location &&
    a.first_seen === b.first_seen &&
    a.last_seen === b.last_seen &&
    a.verified === b.verified &&
    a.key_proof_at === b.key_proof_at
  );
}
