/** Who an announced machine is, as the identity snapshot keeps it (never the overview). */
export interface Identity {
  name: string;
  location: string;
  first_seen: number;
  last_seen: number | null;
  /** Whether its last report proved its key (kept, so a restart does not forget it). */
  verified?: boolean;
}

export type AnnounceRefusal =
  | { refused: 'configured' }
  | { refused: 'cap'; cap: number }
  /** The name differs only in case from one the board has (`existing`). */
  | { refused: 'lookalike'; existing: string };

/** Names are unique without regard to case: this is the key they are compared by. */
export function foldName(name: string): string {
  return name.toLowerCase();
}
