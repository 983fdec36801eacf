import type { Labels } from '../../shared/labels.js';
import type { Selector } from '../../shared/selector.js';

/** A machine the board polls (board.yaml `machines:`), its key and CA read. */
export interface MachineConfig {
  name: string;
  url: string;
  location: string;
  key: string;
  /** PEM of the CA the board trusts for this agent's https URL (its own or the board-wide one). */
  ca?: string | null;
  /** Its board labels from board.yaml (`machines[].labels`); absent: none. */
  labels?: Labels;
}

/**
 * What the board's use cases read of its settings (config/config.ts's BoardSettings is one:
 * the domain does not depend on how board.yaml is read).
 */
export interface DomainSettings {
  /** The config file, or `(embedded default)`: where a configured machine is removed. */
  source: string;
  pollTimeoutMs: number;
  staleAfterMs: number;
  /** Bytes of overview JSON all announced machines may hold together. */
  maxAnnouncedBytes: number;
  sweepConcurrency: number;
  /** PEM of the board-wide CA for agents' https URLs. */
  ca: string | null;
  machines: MachineConfig[];
  announcedKeys: Map<string, string>;
  /** Refuse reports for names that have no key in announcedKeys. */
  announcedKeysOnly: boolean;
  /** Saved selectors (`groups:`), in the file's order. */
  groups: readonly GroupConfig[];
}

/** A group: a name for a saved selector (board.yaml `groups:`). */
export interface GroupConfig {
  name: string;
  selector: Selector;
}
