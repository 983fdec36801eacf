import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import type { SessionView } from '../../shared/wire/overview.js';
import { BELL_SESSIONS_MAX } from '../../shared/wire/overview.js';
import type { BellStore } from '../domain/bells.js';
import { privateDir } from './private-files.js';
import { replaceFile, SymlinkRefused } from './safe-write.js';

export const BELL_FILE = 'bells.json';

/** Whether `value` is a session's latest bell as this file keeps it. */
function isView(value: unknown): value is SessionView {
  const v = value as Partial<SessionView> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.session === 'string' &&
    typeof v.text === 'string' &&
    typeof v.at === 'string' &&
    (v.why === 'finished' || v.why === 'attention' || v.why === 'error')
  );
}

/**
 * The latest bell of each session in `bells.json` under the data directory (0600, the directory
 * 0700), so that a restart or an update does not lose a session waiting for a person. Replaced
 * whole through safe-write (a fresh file beside it, synced, renamed over it; never through a
 * link). A file that cannot be read, or a link there, is logged and the agent starts empty.
 */
export class BellFile implements BellStore {
  private readonly path: string;

  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {
    this.path = join(dir, BELL_FILE);
  }

  /** The bells kept, oldest first (none: no file yet, or one that cannot be read). */
  async load(): Promise<SessionView[]> {
    let text: string;
    try {
      // O_NOFOLLOW: a symlink where the file should be is an error naming the path.
      const handle = await open(this.path, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return [];
      const reason = code === 'ELOOP' ? new SymlinkRefused(this.path) : error;
      this.logger.warn(
        { err: reason, path: this.path },
        'cannot read the kept bells; starting without them',
      );
      return [];
    }
    try {
      const parsed = JSON.parse(text) as { sessions?: unknown };
      const sessions = Array.isArray(parsed.sessions) ? parsed.sessions.filter(isView) : [];
      return sessions.slice(-BELL_SESSIONS_MAX);
    } catch (error) {
      this.logger.warn(
        { err: error, path: this.path },
        'the kept bells are not JSON; starting without them',
      );
      return [];
    }
  }

  /** Replaces the file with these bells (oldest first); a link at its path is refused. */
  async save(sessions: readonly SessionView[]): Promise<void> {
    await privateDir(this.dir);
    await replaceFile(this.path, JSON.stringify({ sessions }), 0o600);
  }
}
