import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../logger.js';

/** Why a reload runs: the signal, or the file changed on disk. */
export type ReloadReason = 'SIGHUP' | 'file change';

export interface ReloadTriggerOptions {
  /** The config file to watch; null when the program has none (SIGHUP is then only logged). */
  file: string | null;
  log: Logger;
  /** Reloads; never rejects (it logs and journals its own failures). */
  reload: (why: ReloadReason) => Promise<void>;
  /** Quiet time after the last change before a reload (editors write in several steps). */
  debounceMs?: number;
}

/** A running trigger: stop it before the program stops. */
export interface ReloadTrigger {
  close(): void;
  /** Resolves when no reload is running or queued (tests and shutdown wait for it). */
  idle(): Promise<void>;
}

export const RELOAD_DEBOUNCE_MS = 300;

/**
 * Calls `reload` on SIGHUP and when `file` changes on disk, one reload at a time: a request
 * during a reload runs one more afterwards. The directory is watched, not the file, because
 * editors and config tools replace a file by renaming a new one over it. A file event whose
 * content is what was last loaded (a touch, a save without change) reloads nothing.
 */
export function startReloadTrigger(options: ReloadTriggerOptions): ReloadTrigger {
  const { file, log } = options;
  const debounceMs = options.debounceMs ?? RELOAD_DEBOUNCE_MS;
  let lastText = file === null ? null : readOrNull(file);
  let running: Promise<void> | null = null;
  let queued: ReloadReason | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const request = (why: ReloadReason): void => {
    if (closed) return;
    if (running !== null) {
      queued = queued === 'SIGHUP' ? queued : why;
      return;
    }
    if (file !== null) lastText = readOrNull(file);
    running = options
      .reload(why)
      .catch((error: unknown) => log.error({ err: error }, 'reload failed'))
      .finally(() => {
        running = null;
        const next = queued;
        queued = null;
        if (next !== null) request(next);
      });
  };

  const onSignal = (): void => {
    if (file === null) {
      log.info('SIGHUP: this board has no config file to reload (embedded default)');
      return;
    }
    request('SIGHUP');
  };
  process.on('SIGHUP', onSignal);

  let watcher: FSWatcher | null = null;
  if (file !== null) {
    const name = basename(file);
    const changed = (): void => {
      timer = null;
      const text = readOrNull(file);
      if (text === null || text === lastText) return;
      request('file change');
    };
    try {
      watcher = watch(dirname(file), { persistent: false }, (_event, changedName) => {
        if (changedName !== null && changedName.toString() !== name) return;
        if (timer !== null) clearTimeout(timer);
        timer = setTimeout(changed, debounceMs);
      });
      watcher.on('error', (error) => {
        log.warn(
          { err: error, file },
          'cannot watch the config file any more; SIGHUP still reloads',
        );
      });
    } catch (error) {
      log.warn({ err: error, file }, 'cannot watch the config file; SIGHUP still reloads');
    }
  }

  return {
    close() {
      closed = true;
      process.off('SIGHUP', onSignal);
      watcher?.close();
      if (timer !== null) clearTimeout(timer);
    },
    async idle() {
      while (running !== null) await running;
    },
  };
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
