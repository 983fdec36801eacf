import { chmod, type FileHandle, mkdir } from 'node:fs/promises';
import { openNoFollow } from './safe-write.js';

/**
 * Makes the agent's data directory (and missing parents) and sets it to 0700, also when it was
 * there already: set here, not left to the umask (a foreground agent often runs under 022).
 */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

/**
 * Opens a file to write, mode 0600 (a file that was there already is set to 0600 too), never
 * through a symbolic link.
 */
export function openPrivate(path: string, flags: 'a' | 'w'): Promise<FileHandle> {
  return openNoFollow(path, flags === 'a' ? 'append' : 'truncate', 0o600);
}
