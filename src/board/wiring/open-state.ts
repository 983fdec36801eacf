import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { BoardSettings } from '../config/config.js';
import { type OpenedStore, openStore } from '../store/open-store.js';

/** Opens the store: one engine, its health, the tables the domain uses and what it starts from. */
export function openState(
  settings: BoardSettings,
  logger: Logger,
  clock: Clock,
): Promise<OpenedStore> {
  return openStore(settings.store, settings.dataDir, logger, () => clock.now());
}
