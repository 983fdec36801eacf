import { ConfigError } from '../shared/config/config-error.js';
import type { ReloadReason } from '../shared/config/reload-trigger.js';
import type { Logger } from '../shared/logger.js';
import type { BoardSettings } from './config.js';
import type { Journal } from './domain/journal.js';
import { diffSettings, keepRestartFields } from './settings-diff.js';

export interface ReloadDeps {
  /** Reads the config file again; throws ConfigError when it cannot be used. */
  load(): BoardSettings;
  current(): BoardSettings;
  /** Makes the running board use `next` (BoardApp.applySettings). */
  apply(next: BoardSettings): { added: string[]; removed: string[] };
  journal: Journal;
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
  let next: BoardSettings;
  try {
    next = deps.load();
  } catch (error) {
    const problems =
      error instanceof ConfigError
        ? error.problems.map((p) => ({ file: error.file, field: p.field, problem: p.problem }))
        : [{ file: running.source, field: '', problem: String((error as Error).message ?? error) }];
    for (const p of problems) {
      log.error(p, `reload refused: ${p.field === '' ? '(file)' : p.field}: ${p.problem}`);
    }
    const listed = problems.map((p) => `${p.field === '' ? '(file)' : p.field}: ${p.problem}`);
    log.warn({ file: running.source, reason: why }, 'reload refused; the running config is kept');
    await journal.record({
      who: 'board',
      op: 'reload',
      target: running.source,
      outcome: 'failed',
      status: null,
      detail: `${why}: kept the running config; ${listed.join('; ')}`.slice(0, 2000),
    });
    return 'failed';
  }
  const change = diffSettings(running, next);
  for (const field of change.restart) {
    log.warn(
      { file: running.source, field },
      `${field} changed in the config; it takes effect after a restart`,
    );
  }
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
    who: 'board',
    op: 'reload',
    target: running.source,
    outcome: 'done',
    status: null,
    detail: detail.slice(0, 2000),
  });
  return 'done';
}
