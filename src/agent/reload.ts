import { logRestartFields, readForReload } from '../shared/config/reload-read.js';
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
  const read = readForReload(() => deps.load(), running.source, why, log);
  if (!('next' in read)) return 'failed';
  const next = read.next;
  const change = diffAgentSettings(running, next);
  logRestartFields(change.restart, running.source, log);
  await deps.apply(keepAgentRestartFields(running, next));
  log.info(
    { file: running.source, reason: why, applied: change.applied, restart: change.restart },
    'config reloaded',
  );
  return 'done';
}
