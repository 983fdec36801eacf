import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'libsql';
import { VERSION } from '../../shared/version.js';
import { TarWriter } from './tar.js';

/** The files of a board's data_dir a backup holds (history.db is absent with `history: false`). */
export const DATABASES = ['state.db', 'history.db'] as const;
/** What names the backup's own description inside the archive. */
export const MANIFEST = 'panoptes-backup.json';
export const FORMAT = 'panoptes-backup';
export const FORMAT_VERSION = 1;

/** Where a board keeps what a backup takes. */
export interface BoardFiles {
  /** The board's data_dir (state.db, history.db). */
  dataDir: string;
  /** The embedded default's directory (embedded-tokens.json, agent/): null for a --config board. */
  embeddedRoot: string | null;
}

export interface ManifestFile {
  name: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof FORMAT;
  version: number;
  program_version: string;
  made_at: string;
  /** `embedded`: made from `npm start` without --config (tokens and the agent's files too). */
  from: 'embedded' | 'config';
  files: ManifestFile[];
}

/** How long the copy waits for a lock the running board holds for a moment. */
const BUSY_TIMEOUT_MS = 10_000;

export function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function sha256File(file: string): string {
  const hash = createHash('sha256');
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(1 << 20);
    for (let at = 0; ; ) {
      const n = readSync(fd, buffer, 0, buffer.length, at);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * A consistent copy of one SQLite file, taken while a board may be writing it: `VACUUM INTO`
 * reads in one transaction (a snapshot of the WAL's last commit) and writes a whole new file.
 */
function copyDatabase(source: string, target: string): void {
  const db = new Database(source, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.prepare('VACUUM INTO ?').run(target);
  } catch (error) {
    throw new Error(`cannot copy ${source}: ${error instanceof Error ? error.message : error}`);
  } finally {
    db.close();
  }
}

/**
 * Writes a backup of a board (running or not) to `file`, a tar archive (mode 0600) holding
 * `panoptes-backup.json`, `state.db`, `history.db` and, for the embedded default,
 * `embedded-tokens.json` and `agent/…`. Returns what it holds.
 */
export function writeBackup(board: BoardFiles, file: string): Manifest {
  const out = resolve(file);
  if (existsSync(out)) throw new Error(`${out} exists: give the backup a new name`);
  if (!existsSync(join(board.dataDir, 'state.db')))
    throw new Error(`no state.db in ${board.dataDir}: nothing to back up (is data_dir right?)`);
  const staging = mkdtempSync(join(dirname(out), `.${basename(out)}.`));
  const partial = join(staging, 'backup.tar');
  try {
    // The databases are copied to the staging directory; the embedded default's small files
    // (rewritten whole) are read once, as they are now.
    const files: ({ name: string; path: string } | { name: string; bytes: Buffer })[] = [];
    for (const name of DATABASES) {
      const source = join(board.dataDir, name);
      if (!existsSync(source)) continue;
      const copy = join(staging, name);
      copyDatabase(source, copy);
      files.push({ name, path: copy });
    }
    if (board.embeddedRoot !== null) {
      const tokens = join(board.embeddedRoot, 'embedded-tokens.json');
      if (existsSync(tokens))
        files.push({ name: 'embedded-tokens.json', bytes: readFileSync(tokens) });
      const agentDir = join(board.embeddedRoot, 'agent');
      if (existsSync(agentDir))
        for (const name of readdirSync(agentDir).sort()) {
          const path = join(agentDir, name);
          if (statSync(path).isFile())
            files.push({ name: `agent/${name}`, bytes: readFileSync(path) });
        }
    }
    const manifest: Manifest = {
      format: FORMAT,
      version: FORMAT_VERSION,
      program_version: VERSION,
      made_at: new Date().toISOString(),
      from: board.embeddedRoot === null ? 'config' : 'embedded',
      files: files.map((f) =>
        'path' in f
          ? { name: f.name, bytes: statSync(f.path).size, sha256: sha256File(f.path) }
          : { name: f.name, bytes: f.bytes.length, sha256: sha256Of(f.bytes) },
      ),
    };
    const tar = new TarWriter(partial);
    try {
      tar.addBytes(MANIFEST, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
      for (const f of files) {
        if ('path' in f) tar.addFile(f.name, f.path);
        else tar.addBytes(f.name, f.bytes);
      }
      tar.close();
    } catch (error) {
      tar.abort();
      throw error;
    }
    renameSync(partial, out);
    return manifest;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
