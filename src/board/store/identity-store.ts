import { join } from 'node:path';
import type { Identity } from '../domain/registry.js';
import { readSnapshot, writeSnapshot } from './snapshot-file.js';

/**
 * The identities of announced machines (name, location, first and last seen; never an
 * overview), so a stopped machine stays on the board, red, across a board restart.
 */
export class IdentityStore {
  private readonly file: string;
  private savedVersion = -1;

  constructor(dataDir: string) {
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

  /** Writes the identities if their version changed since the last write. */
  async saveIfChanged(version: number, identities: () => Identity[]): Promise<void> {
    if (version === this.savedVersion) return;
    this.savedVersion = version;
    await writeSnapshot(this.file, identities());
  }
}
