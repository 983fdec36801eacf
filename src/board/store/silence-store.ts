import { join } from 'node:path';
import { readSnapshot, writeSnapshot } from './snapshot-file.js';
import type { StoreHealth } from './store-health.js';

/** One machine's silence as the snapshot keeps it. */
export interface SilenceRecord {
  name: string;
  /** ms since the epoch. */
  until: number;
  reason: string;
}

/**
 * The silences (maintenance windows) in `silences.json` in the data directory, so they survive
 * a restart. Writes are serialised: each save writes the list as it is when its turn comes.
 */
export class SilenceStore {
  private readonly file: string;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly health: StoreHealth | null = null,
  ) {
    this.file = join(dataDir, 'silences.json');
  }

  load(): SilenceRecord[] {
    const value = readSnapshot(this.file);
    if (!Array.isArray(value)) return [];
    return value.filter(
      (v): v is SilenceRecord =>
        v !== null &&
        typeof v === 'object' &&
        typeof v.name === 'string' &&
        typeof v.until === 'number' &&
        typeof v.reason === 'string',
    );
  }

  /** Resolves once `records()` (read when this write's turn comes) is on disk. */
  save(records: () => SilenceRecord[]): Promise<void> {
    const run = this.chain.then(() => writeSnapshot(this.file, records(), this.health));
    this.chain = run.catch(() => undefined);
    return run;
  }
}
