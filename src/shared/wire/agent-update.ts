import { type Static, Type } from '../typebox.js';
import { ONE_LINE_PATTERN } from './free-text.js';

/** The agent files a board serves under /agent/, the one-file agent first. */
export const AGENT_FILE_NAMES = [
  'panoptes-agent.mjs',
  'panoptes-agent-linux-x64',
  'panoptes-agent-linux-arm64',
] as const;
export type AgentFileName = (typeof AGENT_FILE_NAMES)[number];

export const UPDATE_DETAIL_MAX = 200;

/** How the agent's last update from the board ended (kept in its data directory). */
export const UpdateOutcome = Type.Object({
  state: Type.Union(
    [Type.Literal('updated'), Type.Literal('rolled_back'), Type.Literal('refused')],
    {
      description:
        'updated: the new file runs and reported; rolled_back: the new file did not report within a minute and the old one runs again; refused: nothing was replaced (download or checksum failed, or already current)',
    },
  ),
  to_sha256: Type.Union([Type.String({ pattern: '^[0-9a-f]{64}$' }), Type.Null()]),
  detail: Type.String({ maxLength: UPDATE_DETAIL_MAX, pattern: ONE_LINE_PATTERN }),
  at: Type.String({ maxLength: 40, description: 'ISO 8601 time the update ended' }),
});
export type UpdateOutcome = Static<typeof UpdateOutcome>;

/** What an overview (and so a report) says of the agent itself, for updates from the board. */
export const AgentSelfFields = {
  agent_sha256: Type.Optional(
    Type.String({
      pattern: '^[0-9a-f]{64}$',
      description: 'SHA-256 (hex) of the file the agent runs from (absent when not one file)',
    }),
  ),
  agent_file: Type.Optional(
    Type.Union(
      AGENT_FILE_NAMES.map((name) => Type.Literal(name)),
      { description: 'which of the board’s agent files this agent is' },
    ),
  ),
  updates: Type.Optional(
    Type.Union([Type.Literal('on'), Type.Literal('off')], {
      description: 'on: the agent takes updates from its board (update_from_board in its config)',
    }),
  ),
  update_outcome: Type.Optional(UpdateOutcome),
};

/**
 * Updates are signed: the board signs its SHA256SUMS with an Ed25519 key kept in its store, and
 * an agent takes an update only when the signature verifies against the key its enroll pinned
 * (`update_key`). What is signed is this context line followed by the SHA256SUMS text, so that
 * the signature means nothing for any other text the board's key might sign.
 */
export const SIGNED_SUMS_CONTEXT = 'panoptes agent SHA256SUMS v1\n';
/** The response header of GET /agent/SHA256SUMS that carries the signature (base64). */
export const SUMS_SIGNATURE_HEADER = 'x-panoptes-signature';
/** An update key: the raw 32-byte Ed25519 public key, base64url without padding. */
export const UPDATE_KEY_PATTERN = '^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$';
