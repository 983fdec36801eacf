import { lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { createFileSync, refuseLinkSync, replaceFileSync } from '../io/safe-write.js';

/** The home directory: $HOME, else the user database's. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME : homedir();
}

/** $XDG_CONFIG_HOME when it is absolute (as the XDG spec says), else ~/.config. */
export function configHome(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg !== undefined && isAbsolute(xdg) ? xdg : join(homeOf(env), '.config');
}

/** A file's text, or null when it is not there. */
export function readIfThere(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Makes a directory (and missing parents) 0700 where it makes one; one already there is left. */
export function privateDirs(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Replaces a file of the user's with `text`, atomically (a new file renamed over it). A file that
 * was there keeps its mode and is copied first to `<file>.bak-<time>` (0600) unless `backup` is
 * false; a new one is 0600, in directories made 0700. A symbolic link at `file` is refused
 * (SymlinkRefused, naming it): written through, it would change whatever it points to. Returns
 * the backup's path, or null for none.
 */
export function replaceUserFile(
  file: string,
  text: string,
  options: { backup?: boolean; now?: Date } = {},
): string | null {
  const existed = refuseLinkSync(file);
  let mode = 0o600;
  let backup: string | null = null;
  if (existed) mode = lstatSync(file).mode & 0o777;
  else privateDirs(dirname(file));
  if (existed && options.backup !== false) {
    const before = readFileSync(file);
    const stamp = (options.now ?? new Date()).toISOString().replace(/[-:.]/g, '');
    for (let n = 0; backup === null; n++) {
      const name = `${file}.bak-${stamp}${n === 0 ? '' : `-${n}`}`;
      try {
        createFileSync(name, before, 0o600);
        backup = name;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n > 100) throw error;
      }
    }
  }
  replaceFileSync(file, text, mode);
  return backup;
}
