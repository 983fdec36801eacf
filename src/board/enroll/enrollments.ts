import { randomBytes } from 'node:crypto';
import type { EnrollmentRecord } from '../store/state.js';

/** What enrolling needs of the store: one durable write per change (503 while it cannot). */
export interface EnrollmentWrites {
  put(record: EnrollmentRecord): Promise<void>;
}

/** An enrolled machine as GET /api/enrollments lists it: never its key. */
export interface EnrollmentView {
  name: string;
  enrolled_at: string;
}

/**
 * Rows kept at most, enrolled and revoked together. Only the board token enrolls, so this is
 * a bound on a mistake (a script run in a loop), not on an outsider.
 */
export const ENROLLMENTS_MAX = 20_000;

/** A fresh key: 32 random bytes, base64url (43 characters). */
export function newKey(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The machines added from the board and their keys, in memory and in the store. Names are
 * unique without regard to case, as on the board. A revoked name keeps its row (without the
 * key): reports under it are refused until it is enrolled again.
 */
export class Enrollments {
  private readonly rows = new Map<string, EnrollmentRecord>();

  constructor(
    private readonly table: EnrollmentWrites,
    private readonly now: () => number,
    loaded: readonly EnrollmentRecord[],
  ) {
    this.sync(loaded);
  }

  /** The key the board holds for `name` from an enrollment, if it is enrolled. */
  keyFor(name: string): string | undefined {
    const row = this.rows.get(name.toLowerCase());
    return row?.key === null || row?.name !== name ? undefined : row.key;
  }

  /** Whether `name` (or a name that differs only in case) was revoked and not enrolled since. */
  revoked(name: string): boolean {
    const row = this.rows.get(name.toLowerCase());
    return row !== undefined && row.key === null;
  }

  /** The enrolled row of this name or of one that differs only in case. */
  find(name: string): EnrollmentRecord | undefined {
    return this.rows.get(name.toLowerCase());
  }

  /** Whether there is room for one more row (a name already kept always has room). */
  roomFor(name: string): boolean {
    return this.rows.has(name.toLowerCase()) || this.rows.size < ENROLLMENTS_MAX;
  }

  /** Makes a fresh key for `name` (replacing any earlier one), durable before it resolves. */
  async enroll(name: string): Promise<EnrollmentRecord> {
    const record: EnrollmentRecord = {
      name,
      key: newKey(),
      enrolled_at: this.now(),
      revoked_at: null,
    };
    await this.table.put(record);
    this.set(record);
    return record;
  }

  /** Forgets the key of `name`; false if it held none. Durable before it resolves. */
  async revoke(name: string): Promise<boolean> {
    const row = this.rows.get(name.toLowerCase());
    if (row === undefined || row.key === null) return false;
    const record: EnrollmentRecord = { ...row, key: null, revoked_at: this.now() };
    await this.table.put(record);
    this.set(record);
    return true;
  }

  /**
   * Another board revoked `name` (its record says so): refused here from now on. Nothing is
   * written: that board wrote the revocation to the shared store before it told the others.
   */
  revokedElsewhere(name: string): void {
    const row = this.rows.get(name.toLowerCase());
    if (row?.key === null) return;
    const at = this.now();
    this.set(
      row === undefined
        ? { name, key: null, enrolled_at: at, revoked_at: at }
        : { ...row, key: null, revoked_at: at },
    );
  }

  /** The enrolled names (not the revoked ones), by name; never a key. */
  list(): EnrollmentView[] {
    return [...this.rows.values()]
      .filter((r) => r.key !== null)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((r) => ({ name: r.name, enrolled_at: new Date(r.enrolled_at).toISOString() }));
  }

  /**
   * Takes the rows as the store has them (several boards: another may have enrolled); answers
   * the names whose key is new or changed.
   */
  sync(rows: readonly EnrollmentRecord[]): string[] {
    const given = rows.filter(
      (row) => row.key !== null && this.rows.get(row.name.toLowerCase())?.key !== row.key,
    );
    this.rows.clear();
    for (const row of rows) this.set(row);
    return given.map((row) => row.name);
  }

  private set(record: EnrollmentRecord): void {
    this.rows.set(record.name.toLowerCase(), { ...record });
  }
}
