import { join } from 'node:path';
import type { Identity } from '../domain/registry.js';
import { readSnapshot, writeSnapshot } from './snapshot-file.js';
import type { StoreHealth } from './store-health.js';

/** Where the identities come from: a version that changes with them, and the list. */
export interface IdentitySource {
  identityVersion: number;
  identities(): Identity[];
}

/**
 * The identities of announced machines (name, location, first and last seen; never an
 * overview), so a stopped machine stays on the board, red, across a board restart.
 * Writes are serialised and coalesced: callers during a write share the one after it.
 */
export class IdentityStore {
  private readonly file: string;
  private savedVersion = -1;
  private chain: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;

  constructor(
    dataDir: string,
    private readonly health: StoreHealth | null = null,
  ) {
    this.file = join(dataDir, 'announced.json');
  }

  load(): Identity[] {
    const value = readSnapshot(this.file);
    if (!Array.isArray(value)) return [];
    return value.filter(
      (v): v is Identity =>
        v !== null &&
        typeof v === 'object' &&
        typeof v.name === 'string' &&
        typeof v.location === 'string' &&
        typeof v.first_seen === 'number' &&
        (v.last_seen === null || typeof v.last_seen === 'number'),
    );
  }

  /** Resolves once the identities as they are now are on disk (if they changed). */
  save(source: IdentitySource): Promise<void> {
    if (this.next !== null) return this.next;
    const run = this.chain.then(async () => {
      this.next = null;
      const version = source.identityVersion;
      if (version === this.savedVersion) return;
      await writeSnapshot(this.file, source.identities(), this.health);
      this.savedVersion = version;
    });
    this.next = run;
    this.chain = run.catch(() => undefined);
    return run;
  }
}
