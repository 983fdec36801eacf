import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** What the board answers while the file is not there (404 for the file, 503 for enroll). */
export const AGENT_FILE_MISSING =
  'The one-file agent is not built on this board (npm run build makes dist/agent-file/panoptes-agent.mjs)';

/** The agent as one file (dist/agent-file/panoptes-agent.mjs), read once, with its SHA-256. */
export interface AgentFileBytes {
  bytes: Buffer;
  /** Hex SHA-256 of `bytes`: shown beside the command so a careful person can compare. */
  sha256: string;
}

/**
 * The one-file agent the board serves (GET /agent/panoptes-agent.mjs), built by
 * `scripts/bundle-agent.mjs` at `npm run build`. Read at the first request and kept (1–2 MB):
 * a rebuilt file is served after a restart. Null while the file is not there.
 */
export class AgentFile {
  private loaded: Promise<AgentFileBytes | null> | null = null;

  constructor(readonly path: string) {}

  get(): Promise<AgentFileBytes | null> {
    this.loaded ??= readFile(this.path).then(
      (bytes) => ({ bytes, sha256: createHash('sha256').update(bytes).digest('hex') }),
      () => {
        // Not built (or unreadable): try again at the next request.
        this.loaded = null;
        return null;
      },
    );
    return this.loaded;
  }
}
