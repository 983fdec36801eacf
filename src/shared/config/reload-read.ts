import type { Logger } from '../logger.js';
import { ConfigError } from './config-error.js';
import type { ReloadReason } from './reload-trigger.js';

/** One problem of a config file that a reload refused, as logged. */
export interface ReloadProblem {
  file: string;
  field: string;
  problem: string;
}

/**
 * Reads a config file again for a reload (both programs). On success, the new settings; else
 * every problem is logged with its file and field, the refusal is logged, and the problems are
 * returned (the running config is kept).
 */
export function readForReload<S>(
  load: () => S,
  source: string,
  why: ReloadReason,
  log: Logger,
): { next: S } | { problems: ReloadProblem[] } {
  try {
    return { next: load() };
  } catch (error) {
    const problems =
      error instanceof ConfigError
        ? error.problems.map((p) => ({ file: error.file, field: p.field, problem: p.problem }))
        : [{ file: source, field: '', problem: String((error as Error).message ?? error) }];
    for (const p of problems) {
      log.error(p, `reload refused: ${fieldName(p)}: ${p.problem}`);
    }
    log.warn({ file: source, reason: why }, 'reload refused; the running config is kept');
    return { problems };
  }
}

/** A problem's field as a log line names it (`(file)` for the file as a whole). */
export function fieldName(p: ReloadProblem): string {
  return p.field === '' ? '(file)' : p.field;
}

/** Logs each changed field that only a restart applies. */
export function logRestartFields(fields: readonly string[], source: string, log: Logger): void {
  for (const field of fields) {
    log.warn(
      { file: source, field },
      `${field} changed in the config; it takes effect after a restart`,
    );
  }
}
