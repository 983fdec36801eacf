import { foldName } from './registry.js';

/** The machines added from the board, as the domain needs them (enroll/enrollments.ts). */
export interface EnrolledKeys {
  keyFor(name: string): string | undefined;
  /** The row of this name or of one that differs only in case; `key` null once revoked. */
  find(name: string): { name: string; key: string | null } | undefined;
  /** Whether `name` (or a name that differs only in case) was revoked and not enrolled since. */
  revoked(name: string): boolean;
  /** Forgets the key of `name`; false if it held none. Durable before it resolves. */
  revoke(name: string): Promise<boolean>;
}

/**
 * The keys the board holds for announced machines: board.yaml's `announced_keys` and the
 * machines added from the board. A name with a key owns every spelling of it in other cases.
 */
export class MachineKeys {
  /** announced_keys' names by their case-folded form. */
  private folded = new Map<string, string>();

  constructor(
    private announced: ReadonlyMap<string, string>,
    private readonly enrolled?: EnrolledKeys,
  ) {
    this.fold();
  }

  /** Takes reloaded announced_keys; answers the names whose key is new or changed. */
  setAnnounced(next: ReadonlyMap<string, string>): string[] {
    const given = [...next].filter(([name, key]) => this.announced.get(name) !== key);
    this.announced = next;
    this.fold();
    return given.map(([name]) => name);
  }

  /** The key the board holds for `name` (exactly this spelling), if any. */
  keyFor(name: string): string | undefined {
    return this.announced.get(name) ?? this.enrolled?.keyFor(name);
  }

  /** A name that differs from `name` only in case and holds a key, if any. */
  keyedVariant(name: string): string | undefined {
    const configured = this.folded.get(foldName(name));
    if (configured !== undefined && configured !== name) return configured;
    const row = this.enrolled?.find(name);
    return row !== undefined && row.key !== null && row.name !== name ? row.name : undefined;
  }

  private fold(): void {
    this.folded = new Map([...this.announced.keys()].map((name) => [foldName(name), name]));
  }
}
