import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  copyFileSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { type FileHandle, lstat, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Every file the agent creates or replaces is written through here: never through a symbolic
 * link (one planted where the agent writes would make it write, as its user, wherever the link
 * points), and a link where a file is expected is an error that names the path.
 */

const { O_WRONLY, O_RDONLY, O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_NOFOLLOW } = constants;

/** A new file, made here or not at all: O_EXCL refuses anything there, a dangling link too. */
const NEW = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

/** The error for a symbolic link where the agent writes a file. */
export class SymlinkRefused extends Error {
  constructor(readonly path: string) {
    super(
      `${path} is a symbolic link: the agent does not write through one (replace the link with the file itself)`,
    );
  }
}

const code = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code;

/** ELOOP is what O_NOFOLLOW answers for a link: said as the link it is. */
function named(error: unknown, path: string): unknown {
  return code(error) === 'ELOOP' ? new SymlinkRefused(path) : error;
}

/** Throws SymlinkRefused when `path` is a link; true when something is there, false when not. */
export function refuseLinkSync(path: string): boolean {
  try {
    if (lstatSync(path).isSymbolicLink()) throw new SymlinkRefused(path);
    return true;
  } catch (error) {
    if (code(error) === 'ENOENT') return false;
    throw error;
  }
}

/** Throws SymlinkRefused when `path` is a link; true when something is there, false when not. */
export async function refuseLink(path: string): Promise<boolean> {
  try {
    if ((await lstat(path)).isSymbolicLink()) throw new SymlinkRefused(path);
    return true;
  } catch (error) {
    if (code(error) === 'ENOENT') return false;
    throw error;
  }
}

/** A temporary name beside `path`, not guessable ahead (it is created with O_EXCL anyway). */
function tempBeside(path: string): string {
  return join(
    dirname(path),
    `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
}

/** Creates `path`, which must not be there (not even as a link), with `data` and `mode`. */
export function createFileSync(path: string, data: string | Uint8Array, mode: number): void {
  let fd: number;
  try {
    fd = openSync(path, NEW, mode);
  } catch (error) {
    throw refuseLinkSync(path) ? error : named(error, path);
  }
  try {
    fchmodSync(fd, mode);
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces (or creates) `path` with `data`, atomically: a new file beside it, renamed over it.
 * A link at `path` is refused; rename replaces a link planted meanwhile rather than follow it.
 */
export function replaceFileSync(path: string, data: string | Uint8Array, mode: number): void {
  refuseLinkSync(path);
  const temp = tempBeside(path);
  try {
    createFileSync(temp, data, mode);
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // not made
    }
    throw error;
  }
}

/**
 * Copies `from` to `to` (replaced atomically, never through a link there), with `mode`:
 * COPYFILE_EXCL makes the copy's new file with O_EXCL, which a link planted there also fails.
 */
export function copyIntoPlaceSync(from: string, to: string, mode: number): void {
  refuseLinkSync(to);
  const temp = tempBeside(to);
  try {
    copyFileSync(from, temp, constants.COPYFILE_EXCL);
    chmodNoFollowSync(temp, mode);
    renameSync(temp, to);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // not made
    }
    throw error;
  }
}

/** Opens `path` to write without following a link: `new` (must not be there), `append`, `truncate`. */
export async function openNoFollow(
  path: string,
  how: 'new' | 'append' | 'truncate',
  mode: number,
): Promise<FileHandle> {
  const flags =
    how === 'new' ? NEW : O_WRONLY | O_CREAT | O_NOFOLLOW | (how === 'append' ? O_APPEND : O_TRUNC);
  let handle: FileHandle;
  try {
    handle = await open(path, flags, mode);
  } catch (error) {
    if (how === 'new' && code(error) === 'EEXIST') await refuseLink(path);
    throw named(error, path);
  }
  try {
    // The mode asked for, also for a file that was there (made before under another umask).
    await handle.chmod(mode);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** Async replaceFileSync: `data` fsync'd in a new file beside `path`, renamed over it. */
export async function replaceFile(
  path: string,
  data: string | Uint8Array,
  mode: number,
): Promise<void> {
  await refuseLink(path);
  const temp = tempBeside(path);
  try {
    const handle = await openNoFollow(temp, 'new', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** chmod that does not follow a link at `path` (a link is refused); false when nothing is there. */
export function chmodNoFollowSync(path: string, mode: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NOFOLLOW);
  } catch (error) {
    if (code(error) === 'ENOENT') return false;
    throw named(error, path);
  }
  try {
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Async chmodNoFollowSync. */
export async function chmodNoFollow(path: string, mode: number): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, O_RDONLY | O_NOFOLLOW);
  } catch (error) {
    if (code(error) === 'ENOENT') return false;
    throw named(error, path);
  }
  try {
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
  return true;
}
