import {
  AGENT_FILE_NAMES,
  type AgentFileName,
  UPDATE_DETAIL_MAX,
  type UpdateOutcome,
} from '../../shared/wire/agent-update.js';
import { safeText } from '../../shared/wire/free-text.js';
import { record } from './overview-values.js';

/** What a machine's last overview said of its agent: which file it runs, and updates. */
export interface AgentSelf {
  version: string | null;
  /** SHA-256 (hex) of the file the agent runs from; null when it does not say. */
  sha256: string | null;
  file: AgentFileName | null;
  updates: 'on' | 'off';
  /** How its last update from the board ended, as it keeps saying until the next one. */
  outcome: UpdateOutcome | null;
}

/** What a machine holds of its agent (Machine has these two fields). */
export interface AgentState {
  agent: AgentSelf | null;
  updateAvailable: boolean;
}

/**
 * The agent files this board serves, by SHA-256: read synchronously by the domain (a record's
 * update_available), kept fresh from the files by the wiring (enroll/served-releases.ts).
 */
export interface AgentReleases {
  /** The SHA-256 (hex) of the board's `file`, or null when the board does not serve it. */
  sha256(file: string): string | null;
  /** Reads the files' sums again now; true when one came, went or changed. */
  refresh?(): Promise<boolean>;
}

/** A board that serves no agent file. */
export const NO_RELEASES: AgentReleases = { sha256: () => null };

const SHA256 = /^[0-9a-f]{64}$/;
const FILES: readonly string[] = AGENT_FILE_NAMES;
const STATES: readonly string[] = ['updated', 'rolled_back', 'refused'];

/** The agent's own fields of an overview (unknown shape: each is checked), or null: none. */
export function agentSelfOf(overview: Record<string, unknown>): AgentSelf | null {
  const { version, agent_sha256: sha, agent_file: file, updates } = overview;
  const outcome = outcomeOf(overview.update_outcome);
  const self: AgentSelf = {
    version: typeof version === 'string' ? safeText(version.slice(0, 64)) : null,
    sha256: typeof sha === 'string' && SHA256.test(sha) ? sha : null,
    file: typeof file === 'string' && FILES.includes(file) ? (file as AgentFileName) : null,
    updates: updates === 'on' ? 'on' : 'off',
    outcome,
  };
  return self.version === null &&
    self.sha256 === null &&
    self.file === null &&
    self.updates === 'off' &&
    outcome === null
    ? null
    : self;
}

function outcomeOf(value: unknown): UpdateOutcome | null {
  const o = record(value);
  if (o === null || typeof o.state !== 'string' || !STATES.includes(o.state)) return null;
  if (typeof o.at !== 'string' || o.at.length > 40) return null;
  return {
    state: o.state as UpdateOutcome['state'],
    to_sha256: typeof o.to_sha256 === 'string' && SHA256.test(o.to_sha256) ? o.to_sha256 : null,
    detail: typeof o.detail === 'string' ? safeText(o.detail.slice(0, UPDATE_DETAIL_MAX)) : '',
    at: o.at,
  };
}

function same(a: AgentSelf | null, b: AgentSelf | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.version === b.version &&
    a.sha256 === b.sha256 &&
    a.file === b.file &&
    a.updates === b.updates &&
    a.outcome?.at === b.outcome?.at &&
    a.outcome?.state === b.outcome?.state
  );
}

/** Whether the board serves the machine's kind of file, and it differs from the one it runs. */
export function updateAvailable(self: AgentSelf | null, releases: AgentReleases): boolean {
  if (self === null || self.file === null || self.sha256 === null) return false;
  const served = releases.sha256(self.file);
  return served !== null && served !== self.sha256;
}

/**
 * Keeps what a new overview says of the agent: the object the machine holds when nothing
 * changed (10,000 reports a second leave no new one), else the new one.
 */
export function noteAgent(m: AgentState, next: AgentSelf | null, releases: AgentReleases): void {
  if (!same(m.agent, next)) m.agent = next;
  m.updateAvailable = updateAvailable(m.agent, releases);
}

/** Works update_available out again (the board's files changed); true when it flipped. */
export function noteReleases(m: AgentState, releases: AgentReleases): boolean {
  const available = updateAvailable(m.agent, releases);
  if (available === m.updateAvailable) return false;
  m.updateAvailable = available;
  return true;
}

/** The record's `agent` member (GET /api/board, the live feed, list_machines). */
export function agentRecord(m: AgentState): {
  version: string | null;
  sha256: string | null;
  update_available: boolean;
  updates: 'on' | 'off';
  last_update: { state: UpdateOutcome['state']; detail: string; at: string } | null;
} {
  const a = m.agent;
  const o = a?.outcome ?? null;
  return {
    version: a?.version ?? null,
    sha256: a?.sha256 ?? null,
    update_available: m.updateAvailable,
    updates: a?.updates ?? 'off',
    // What the agent says of its last update (its words): the card shows a rollback's reason.
    last_update: o === null ? null : { state: o.state, detail: o.detail, at: o.at },
  };
}
