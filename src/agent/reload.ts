import { ConfigError } from '../shared/config/config-error.js';
import type { ReloadReason } from '../shared/config/reload-trigger.js';
import type { Logger } from '../shared/logger.js';
import type { AgentSettings } from './config.js';
import { diffAgentSettings, keepAgentRestartFields } from './settings-diff.js';

export interface AgentReloadDeps {
  /** Reads the agent's file again; throws ConfigError when it cannot be used. */
  load(): AgentSettings;
  current(): AgentSettings;
  /** Makes the running agent use `next` (fields needing a restart already hold running values). */
  apply(next: AgentSettings): Promise<void>;
  log: Logger;
}

/**
 * One reload of the agent's file: apply it, logging the fields that need a restart, or keep the
 * running config and log every problem with its file and field.
 */
export async function reloadAgent(
  deps: AgentReloadDeps,
  why: ReloadReason,
): Promise<'done' | 'failed'> {
  const { log } = deps;
  const running = deps.current();
  let next: AgentSettings;
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
    log.warn({ file: running.source, reason: why }, 'reload refused; the running config is kept');
    return 'failed';
  }
  const change = diffAgentSettings(running, next);
  for (const field of change.restart) {
    log.warn(
      { file: running.source, field },
      `${field} changed in the config; it takes effect after a restart`,
    );
  }
  await deps.apply(keepAgentRestartFields(running, next));
  log.info(
    { file: running.source, reason: why, applied: change.applied, restart: change.restart },
    'config reloaded',
  );
  return 'done';
}
