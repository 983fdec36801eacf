import { type FileHandle, mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HandedResult } from '../../shared/wire/action.js';
import {
  parseRanLine,
  RAN_IDS_MAX,
  RAN_OUTPUT_MAX,
  type RanEntry,
  type RanStore,
  ranLine,
} from '../domain/ran-ids.js';
import { trimResult } from '../domain/report-fit.js';
import { openPrivate } from './private-files.js';
import { chmodNoFollow, replaceFile } from './safe-write.js';

export const RAN_FILE = 'handed-actions.jsonl';

/**
 * The ids of handed actions in an append-only file under the data directory, each line fsync'd
 * before it counts. A torn last line (a crash mid-write) is dropped on open. The file is
 * rewritten with the newest `max` ids when it has grown to twice that.
 */
export class RanFile implements RanStore {
  private readonly entries = new Map<string, RanEntry>();
  private handle: FileHandle | null = null;
  private lines = 0;
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private readonly max: number,
  ) {}

  /** Opens (creating if needed) the store in `dir`; the file is 0600, a new `dir` 0700. */
  static async open(dir: string, max = RAN_IDS_MAX): Promise<RanFile> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const store = new RanFile(join(dir, RAN_FILE), max);
    await store.load();
    return store;
  }

  get(id: string): RanEntry | undefined {
    return this.entries.get(id);
  }

  markStarted(id: string): Promise<void> {
    return this.append({ id, state: 'started' });
  }

  record(result: HandedResult): Promise<void> {
    return this.append({
      id: result.id,
      state: 'done',
      result: trimResult(result, RAN_OUTPUT_MAX),
    });
  }

  async close(): Promise<void> {
    await this.queue;
    await this.handle?.close();
    this.handle = null;
  }

  private append(entry: RanEntry): Promise<void> {
    const write = this.queue.then(async () => {
      const handle = await this.writable();
      await handle.write(ranLine(entry));
      await handle.sync();
      this.remember(entry);
      this.lines += 1;
      if (this.lines >= this.max * 2) await this.rewrite();
    });
    // A failed write fails its caller, not the writes after it.
    this.queue = write.catch(() => undefined);
    return write;
  }

  private remember(entry: RanEntry): void {
    this.entries.delete(entry.id);
    this.entries.set(entry.id, entry);
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  private async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    // One an earlier agent wrote under the umask becomes private before it is next written.
    await chmodNoFollow(this.path, 0o600);
    let clean = text === '' || text.endsWith('\n');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const entry = parseRanLine(line);
      if (entry === null) {
        clean = false;
        continue;
      }
      this.remember(entry);
      this.lines += 1;
    }
    // Appending after a torn line would damage the next record too: start from a clean file.
    if (!clean || this.lines > this.entries.size) await this.rewrite();
  }

  private async writable(): Promise<FileHandle> {
    this.handle ??= await openPrivate(this.path, 'a');
    return this.handle;
  }

  /** Writes the remembered entries to a new file and renames it over the old one. */
  private async rewrite(): Promise<void> {
    await this.handle?.close();
    this.handle = null;
    await replaceFile(this.path, [...this.entries.values()].map(ranLine).join(''), 0o600);
    await syncDir(join(this.path, '..'));
    this.lines = this.entries.size;
  }
}

async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not every platform can fsync a directory; the rename itself is still atomic.
  }
}
