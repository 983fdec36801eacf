import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { sha256File } from '../../shared/sha256-file.js';
import { AGENT_FILE_NAMES, type AgentFileName } from '../../shared/wire/agent-update.js';
import { gunzippedSha256, openAgentFile } from './gzip-only.js';

/** What the board answers while no agent file is there (404 for a file, 503 for enroll). */
export const AGENT_FILE_MISSING =
  'The one-file agent is not built on this board (npm run build makes dist/agent-file/panoptes-agent.mjs)';

/** The one-file agent, run by Node 20 or later. */
export const AGENT_MJS: AgentFileName = 'panoptes-agent.mjs';

/** One agent file in the served directory. */
export interface AgentFileEntry {
  name: AgentFileName;
  /** Hex SHA-256 of the file as it is on disk now. */
  sha256: string;
  size: number;
  mtimeMs: number;
  path: string;
  /** The build keeps the binaries only as `<file>.gz`: then `path` is absent and `size` is unzipped. */
  gzipOnly: boolean;
}

/** The build's gzip of an agent file, beside it (`<file>.gz`). */
export interface GzipFile {
  path: string;
  size: number;
}

interface Hashed {
  size: number;
  mtimeMs: number;
  sha256: Promise<{ sha256: string; size: number }>;
}

/**
 * The agent files the board serves (`agent_files:`, default the build's dist/agent-file): the
 * one-file agent and the binaries, with their SHA-256. Files are streamed, never held (a binary
 * is ~150 MB); a file's hash is taken once per size and modification time, so a rebuilt or
 * replaced file is served with its new hash without a restart.
 */
export class AgentFiles {
  private readonly hashes = new Map<string, Hashed>();

  /** `dir`: read at every call (a reload may change it). */
  constructor(private readonly dir: () => string) {}

  /** The files there now, in AGENT_FILE_NAMES order. */
  async list(): Promise<AgentFileEntry[]> {
    const found = await Promise.all(AGENT_FILE_NAMES.map((name) => this.get(name)));
    return found.filter((entry): entry is AgentFileEntry => entry !== null);
  }

  /** One file, or null when it is not there (or not a regular file) either as it is or gzipped. */
  async get(name: AgentFileName): Promise<AgentFileEntry | null> {
    const plain = join(this.dir(), name);
    let path = plain;
    let info = await stat(path).catch(() => null);
    const gzipOnly = info === null || !info.isFile();
    if (gzipOnly) {
      path = `${plain}.gz`;
      info = await stat(path).catch(() => null);
    }
    if (info === null || !info.isFile()) return null;
    let hashed = this.hashes.get(path);
    if (hashed === undefined || hashed.size !== info.size || hashed.mtimeMs !== info.mtimeMs) {
      const size = info.size;
      hashed = {
        size,
        mtimeMs: info.mtimeMs,
        sha256: gzipOnly
          ? gunzippedSha256(path)
          : sha256File(path).then((sha256) => ({ sha256, size })),
      };
      this.hashes.set(path, hashed);
      // A failed read is tried again at the next call.
      hashed.sha256.catch(() => this.hashes.delete(path));
    }
    const hash = await hashed.sha256.catch(() => null);
    if (hash === null) return null;
    return { name, ...hash, mtimeMs: info.mtimeMs, path: plain, gzipOnly };
  }

  /**
   * `<file>.gz` when it is there and newer than the file (one older is of a file since replaced),
   * else null. The board never compresses: the build writes these.
   */
  async gzipOf(entry: AgentFileEntry): Promise<GzipFile | null> {
    const path = `${entry.path}.gz`;
    const info = await stat(path).catch(() => null);
    if (info === null || !info.isFile()) return null;
    if (!entry.gzipOnly && info.mtimeMs <= entry.mtimeMs) return null;
    return { path, size: info.size };
  }

  /** The file's bytes as they are (unzipped on the way when the build kept only its .gz). */
  open(entry: AgentFileEntry): Readable {
    return openAgentFile(entry.path, entry.gzipOnly);
  }

  /** The SHA256SUMS text (`sha256sum` format) of the files there now. */
  async sums(): Promise<string> {
    return (await this.list()).map((entry) => `${entry.sha256}  ${entry.name}\n`).join('');
  }
}

/** Whether an Accept-Encoding allows gzip (named, or `*`, with a q above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  const weights = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    weights.set(coding, q === undefined ? 1 : Number(q.slice(2)));
  }
  const q = weights.get('gzip') ?? weights.get('x-gzip') ?? weights.get('*') ?? 0;
  return q > 0;
}
