import type { Logger } from '../../shared/logger.js';
import type { AgentUpdates } from '../domain/agent-updates.js';
import type { Registry } from '../domain/registry.js';
import { AgentFiles } from '../enroll/agent-files.js';
import { ServedReleases } from '../enroll/served-releases.js';
import type { CurrentSettings } from './current-settings.js';

/** How often the served files' sums are read again (a replaced file shows within this). */
const RELEASES_REFRESH_MS = 10_000;

/** The agent files the board serves (`agent_files:`, else `builtDir`), and their sums read once. */
export async function openReleases(
  current: CurrentSettings,
  builtDir: string,
): Promise<{ files: AgentFiles; releases: ServedReleases }> {
  const files = new AgentFiles(() => current.get().agentFiles ?? builtDir);
  const releases = new ServedReleases(files);
  await releases.refresh();
  return { files, releases };
}

/**
 * Every second the batches of "update all" move on when their wait is over; every ten, the
 * served files' sums are read again, and records whose update_available flipped are redone.
 * Answers the stop.
 */
export function startUpdateTimers(
  releases: ServedReleases,
  registry: Registry,
  updates: AgentUpdates,
  logger: Logger,
): () => void {
  let last = Date.now();
  let reading = false;
  const timer = setInterval(() => {
    updates.tick();
    if (reading || Date.now() - last < RELEASES_REFRESH_MS) return;
    reading = true;
    last = Date.now();
    releases
      .refresh()
      .then((changed) => {
        if (changed) registry.releasesChanged();
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'reading the agent files failed'))
      .finally(() => {
        reading = false;
      });
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}
