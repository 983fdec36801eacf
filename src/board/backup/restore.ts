import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'libsql';
import {
  type BoardFiles,
  DATABASES,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST,
  type Manifest,
} from './backup.js';
import { copyEntry, listTar, readEntry, type TarEntry } from './tar.js';

/** What a restore did, for the lines the command prints. */
export interface Restored {
  manifest: Manifest;
  /** Paths written. */
  written: string[];
  /** Files that were in the way, renamed (never deleted). */
  setAside: string[];
  /** Files of the backup left out (an embedded default's tokens and agent, into a --config board). */
  skipped: string[];
}

const SAFE_AGENT_FILE = /^agent\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Whether a process holds `file` open as an SQLite database: a connection in WAL mode keeps a
 * shared lock, so an exclusive one cannot be had while the board runs. Nothing is written.
 */
export function inUse(file: string): boolean {
  if (!existsSync(file)) return false;
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    return false;
  } catch (error) {
    if (/locked|busy/i.test(error instanceof Error ? error.message : String(error))) return true;
    throw error;
  } finally {
    db.close();
  }
}

function readManifest(fd: number, entries: TarEntry[]): Manifest {
  const entry = entries.find((e) => e.name === MANIFEST);
  if (entry === undefined) throw new Error(`not a Panoptes backup (no ${MANIFEST} in it)`);
  const manifest = JSON.parse(readEntry(fd, entry).toString('utf8')) as Partial<Manifest>;
  if (manifest.format !== FORMAT || !Array.isArray(manifest.files))
    throw new Error(`not a Panoptes backup (${MANIFEST} is not one)`);
  if (typeof manifest.version !== 'number' || manifest.version > FORMAT_VERSION)
    throw new Error(
      `the backup's format is version ${String(manifest.version)}, newer than this Panoptes reads (${FORMAT_VERSION})`,
    );
  for (const file of manifest.files) {
    const known =
      (DATABASES as readonly string[]).includes(file.name) ||
      file.name === 'embedded-tokens.json' ||
      SAFE_AGENT_FILE.test(file.name);
    if (!known) throw new Error(`the backup holds a file it should not: ${file.name}`);
  }
  if (!manifest.files.some((f) => f.name === 'state.db'))
    throw new Error('the backup holds no state.db');
  return manifest as Manifest;
}

/** A stamp for the names of files set aside: sortable, no colons. */
function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Restores a backup into a board's data_dir (and, for the embedded default, its tokens and the
 * agent's files), refusing while a board runs on it. Every file is checked against its SHA-256
 * before anything is moved; files in the way (with a database's -wal and -shm) are renamed
 * `NAME.before-restore-STAMP`, never deleted.
 */
export function restoreBackup(file: string, target: BoardFiles): Restored {
  const fd = openSync(resolve(file), 'r');
  try {
    const entries = listTar(fd);
    const manifest = readManifest(fd, entries);
    for (const name of DATABASES)
      if (inUse(join(target.dataDir, name)))
        throw new Error(
          `a board is running on ${target.dataDir} (${name} is in use): stop it before restoring`,
        );
    const wanted = manifest.files.filter(
      (f) => target.embeddedRoot !== null || (DATABASES as readonly string[]).includes(f.name),
    );
    const skipped = manifest.files.filter((f) => !wanted.includes(f)).map((f) => f.name);
    const where = (name: string) =>
      (DATABASES as readonly string[]).includes(name)
        ? join(target.dataDir, name)
        : join(target.embeddedRoot ?? target.dataDir, name);

    mkdirSync(target.dataDir, { recursive: true, mode: 0o700 });
    const staging = mkdtempSync(join(target.dataDir, '.restore-'));
    try {
      // Out of the archive into the staging directory, each checked against the manifest.
      const staged: { name: string; path: string }[] = [];
      for (const f of wanted) {
        const entry = entries.find((e) => e.name === f.name);
        if (entry === undefined) throw new Error(`the backup is missing ${f.name}`);
        const path = join(staging, f.name.replace('/', '__'));
        const out = openSync(path, 'wx', 0o600);
        const hash = createHash('sha256');
        try {
          copyEntry(fd, entry, out, (chunk) => hash.update(chunk));
          fsyncSync(out);
        } finally {
          closeSync(out);
        }
        if (entry.size !== f.bytes || hash.digest('hex') !== f.sha256)
          throw new Error(
            `${f.name} in the backup does not match its checksum: the file is damaged`,
          );
        staged.push({ name: f.name, path });
      }
      // Then into place: what was there is set aside first (a database with its WAL, which
      // must never be replayed onto the restored file).
      const setAside: string[] = [];
      const suffix = `.before-restore-${stamp()}`;
      const written: string[] = [];
      for (const { name, path } of staged) {
        const final = where(name);
        mkdirSync(dirname(final), { recursive: true, mode: 0o700 });
        const related = (DATABASES as readonly string[]).includes(name)
          ? [final, `${final}-wal`, `${final}-shm`, `${final}-journal`]
          : [final];
        for (const old of related)
          if (existsSync(old)) {
            renameSync(old, `${old}${suffix}`);
            setAside.push(`${old}${suffix}`);
          }
        renameSync(path, final);
        written.push(final);
      }
      for (const dir of new Set(written.map((w) => dirname(w)))) syncDir(dir);
      return { manifest, written, setAside, skipped };
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  } finally {
    closeSync(fd);
  }
}
