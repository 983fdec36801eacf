import type { StoredIdentity } from './state.js';

/**
 * What a save of the identities must write: the ones that differ from what the store holds, and
 * the names that are gone. A sweep that changed nothing writes nothing; one new name, one row.
 */
export class IdentityDiff {
  private saved = new Map<string, string>();

  /** Notes what the store holds (read at start). */
  loaded(identities: readonly StoredIdentity[]): void {
    this.saved = new Map(identities.map((i) => [i.name, JSON.stringify(i)]));
  }

  /** The writes that bring the store to `next`; call `commit` once they are committed. */
  against(next: readonly StoredIdentity[]): {
    upsert: StoredIdentity[];
    remove: string[];
    commit: () => void;
  } {
    const now = new Map(next.map((i) => [i.name, JSON.stringify(i)]));
    const upsert = next.filter((i) => this.saved.get(i.name) !== now.get(i.name));
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
