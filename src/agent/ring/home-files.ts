import {
  chmodSync,
  constants,
  copyFileSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';

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
 * false, and the path it is written through is followed (settings kept in a dotfiles repository
 * are often symlinks); a new one is 0600, in directories made 0700. Returns the backup's path, or
 * null for none.
 */
export function replaceUserFile(
  file: string,
  text: string,
  options: { backup?: boolean; now?: Date } = {},
): string | null {
  let target = file;
  let mode = 0o600;
  let backup: string | null = null;
  let existed = true;
  try {
    target = realpathSync(file);
    mode = statSync(target).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    existed = false;
    privateDirs(dirname(file));
  }
  if (existed && options.backup !== false) {
    const stamp = (options.now ?? new Date()).toISOString().replace(/[-:.]/g, '');
    for (let n = 0; backup === null; n++) {
      const name = `${file}.bak-${stamp}${n === 0 ? '' : `-${n}`}`;
      try {
        copyFileSync(target, name, constants.COPYFILE_EXCL);
        chmodSync(name, 0o600);
        backup = name;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n > 100) throw error;
      }
    }
  }
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, text, { mode });
    chmodSync(temp, mode);
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // not written
    }
    throw error;
  }
  return backup;
}
