import { fieldName, logRestartFields, readForReload } from '../../shared/config/reload-read.js';
import type { ReloadReason } from '../../shared/config/reload-trigger.js';
import type { Logger } from '../../shared/logger.js';
import { BOARD_WHO } from '../domain/who.js';
import type { Who } from '../schemas.js';
import type { BoardSettings } from './config.js';
import { diffSettings, keepRestartFields } from './settings-diff.js';

/** Where a reload's outcome is written: the board's journal, one entry per reload. */
export interface ReloadJournal {
  record(entry: {
    who: Who;
    op: 'reload';
    target: string;
    outcome: 'done' | 'failed';
    status: null;
    detail: string;
  }): Promise<unknown>;
}

export interface ReloadDeps {
  /** Reads the config file again; throws ConfigError when it cannot be used. */
  load(): BoardSettings;
  current(): BoardSettings;
  /** Makes the running board use `next` (BoardApp.applySettings). */
  apply(next: BoardSettings): { added: string[]; removed: string[] };
  journal: ReloadJournal;
  log: Logger;
}

/**
 * One reload: read the file, and either apply it (fields that need a restart keep their running
 * value, and the log says so) or keep the running config and log every problem with its file
 * and field. Either way the journal gets one `reload` entry with the outcome.
 */
export async function reloadBoard(deps: ReloadDeps, why: ReloadReason): Promise<'done' | 'failed'> {
  const { log, journal } = deps;
  const running = deps.current();
  const read = readForReload(() => deps.load(), running.source, why, log);
  if (!('next' in read)) {
    const listed = read.problems.map((p) => `${fieldName(p)}: ${p.problem}`);
    await journal.record({
      who: BOARD_WHO,
      op: 'reload',
      target: running.source,
      outcome: 'failed',
      status: null,
      detail: `${why}: kept the running config; ${listed.join('; ')}`.slice(0, 2000),
    });
    return 'failed';
  }
  const next = read.next;
  const change = diffSettings(running, next);
  logRestartFields(change.restart, running.source, log);
  const { added, removed } = deps.apply(keepRestartFields(running, next));
  const parts = [
    change.applied.length > 0 ? `applied: ${change.applied.join(', ')}` : 'no change to apply',
  ];
  if (added.length > 0) parts.push(`machines added: ${added.join(', ')}`);
  if (removed.length > 0) parts.push(`machines removed: ${removed.join(', ')}`);
  if (change.restart.length > 0) parts.push(`needs a restart: ${change.restart.join(', ')}`);
  const detail = `${why}: ${parts.join('; ')}`;
  log.info(
    {
      file: running.source,
      reason: why,
      applied: change.applied,
      restart: change.restart,
      added,
      removed,
    },
    'config reloaded',
  );
  await journal.record({
    who: BOARD_WHO,
    op: 'reload',
    target: running.source,
    outcome: 'done',
    status: null,
    detail: detail.slice(0, 2000),
  });
  return 'done';
}
