import type { RecordsTable } from '../store/state.js';
import type { Ownership } from './ownership.js';

/** A machine forgotten by another board, as its record tells (see ForgetNotices). */
export interface ForgetNotice {
  name: string;
  /** Its key was revoked with it. */
  revoked: boolean;
}

/**
 * Tells the other boards of a machine forgotten here: a record that says so, which a later
 * report of the machine replaces. One whose key was revoked with it says so: the others refuse
 * its reports from the moment they forget it, not from their next read of the shared
 * enrollments (a report taken in between would list it again).
 */
export class ForgetNotices {
  constructor(
    private readonly deps: {
      self: () => string;
      records: RecordsTable;
      ownership: Ownership;
    },
  ) {}

  /** Publishes that `name` was forgotten here (nothing while this board is alone). */
  async publish(name: string, revoked = false): Promise<void> {
    if (!this.deps.ownership.clustered()) return;
    const record = JSON.stringify({ name, forgotten: true, revoked });
    await this.deps.records.publish(this.deps.self(), [{ name, record, meta: '{}' }]);
  }
}

/** The notice a published record without an overview holds, or null if it holds none. */
export function readForgetNotice(text: string): ForgetNotice | null {
  const rec = JSON.parse(text) as { name?: unknown; forgotten?: unknown; revoked?: unknown };
  if (typeof rec.name !== 'string' || rec.forgotten !== true) return null;
  return { name: rec.name, revoked: rec.revoked === true };
}
