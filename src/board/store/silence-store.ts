import type { SilenceKeeper, SilenceRecord } from '../notify/ports.js';

/**
 * The silences as the store keeps them. Saves are serialised: each writes the list as it is
 * when its turn comes, so two saves close together never commit in the wrong order.
 */
export class SilenceStore implements SilenceKeeper {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly table: { save(records: readonly SilenceRecord[]): Promise<void> },
    private readonly loaded: readonly SilenceRecord[] = [],
  ) {}

  /** The silences read from the store at start. */
  load(): readonly SilenceRecord[] {
    return this.loaded;
  }

  /** Resolves once `records()` (read when this write's turn comes) is stored. */
  save(records: () => SilenceRecord[]): Promise<void> {
    const run = this.chain.then(() => this.table.save(records()));
    this.chain = run.catch(() => undefined);
    return run;
  }
}
