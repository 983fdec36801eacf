import { mkdirSync, readFileSync } from 'node:fs';
import { type FileHandle, open, rename } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { StoreHealth } from './store-health.js';

/** What was read back from a log file at start. */
export interface LogContents<T> {
  records: T[];
  /** Lines that could not be parsed (a torn last line after a crash, or damage). */
  skipped: number;
}

/**
 * An append-only file of JSON lines. `append` resolves only once the lines are on disk
 * (written and fdatasync'd), so whatever a caller acknowledges after it survives `kill -9`.
 * Appends that arrive while a write is in progress are committed together (group commit).
 */
export class AppendLog<T> {
  private handle: FileHandle | null = null;
  private pending: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushQueued = false;
  /** Every write and rewrite runs in this chain, one after another. */
  private chain: Promise<void> = Promise.resolve();
  private lines = 0;
  /** Bytes in the file after the last write that succeeded. */
  private size = 0;
  /** Whether the file read at open ended without its last newline. */
  private tornTail = false;

  private constructor(
    private readonly file: string,
    private readonly health: StoreHealth | null,
  ) {}

  /** Opens (creating) the file and reads back every whole record in it. */
  static async open<T>(
    file: string,
    parse: (value: unknown) => T | null,
    health: StoreHealth | null = null,
  ): Promise<{ log: AppendLog<T>; contents: LogContents<T> }> {
    mkdirSync(dirname(file), { recursive: true });
    const log = new AppendLog<T>(file, health);
    const contents = log.read(parse);
    log.handle = await open(file, 'a');
    log.size = (await log.handle.stat()).size;
    // A torn last line (a crash mid-write) is ended here: appended to, it would swallow the
    // next record, which a later start would then skip, acknowledged as it was.
    if (log.tornTail) {
      await log.handle.write('\n');
      await log.handle.datasync();
      log.size += 1;
    }
    log.lines = contents.records.length + contents.skipped;
    return { log, contents };
  }

  /** Lines in the file now (the caller decides when to compact). */
  get lineCount(): number {
    return this.lines;
  }

  /** Appends one record; resolves once it is on disk. */
  append(record: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ line: `${JSON.stringify(record)}\n`, resolve, reject });
      this.lines += 1;
      if (!this.flushQueued) {
        this.flushQueued = true;
        void this.enqueue(() => this.flush());
      }
    });
  }

  /**
   * Replaces the file's contents atomically (temp file, fsync, rename) with the records
   * `snapshot` returns when the rewrite runs. `snapshot` must describe the whole current state,
   * including every record appended before it is called (appends queued with it may already be
   * in the old file, which the new one replaces). Appends that arrive while the rewrite runs
   * follow it in the new file, so a reader must tolerate a record written twice.
   */
  rewrite(snapshot: () => readonly T[]): Promise<void> {
    return this.enqueue(() => this.guarded(() => this.replace(snapshot)));
  }

  private async replace(snapshot: () => readonly T[]): Promise<void> {
    const records = snapshot();
    const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    const temp = `${this.file}.tmp`;
    const out = await open(temp, 'w');
    try {
      await out.writeFile(text);
      await out.datasync();
    } finally {
      await out.close();
    }
    await rename(temp, this.file);
    await syncDir(dirname(this.file));
    await this.handle?.close();
    this.handle = await open(this.file, 'a');
    this.size = Buffer.byteLength(text);
    this.lines = records.length + this.pending.length;
  }

  /** A write through the store's health (counted and answered 503 when it fails), if any. */
  private guarded(write: () => Promise<void>): Promise<void> {
    return this.health === null ? write() : this.health.guard(basename(this.file), write);
  }

  /** Waits for every append so far to be on disk, then closes the file. */
  async close(): Promise<void> {
    await this.enqueue(async () => {
      await this.handle?.close();
      this.handle = null;
    });
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.chain.then(task);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async flush(): Promise<void> {
    this.flushQueued = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      await this.guarded(async () => {
        const handle = this.handle;
        if (handle === null) throw new Error(`${this.file} is closed`);
        const bytes = Buffer.from(batch.map((p) => p.line).join(''));
        try {
          // A nearly full disk can take part of a write and say so only by its count.
          const { bytesWritten } = await handle.write(bytes);
          if (bytesWritten < bytes.length) throw shortWrite(this.file);
          await handle.datasync();
        } catch (error) {
          // A write cut short (a full disk) leaves part of a line: cut back to the last whole
          // one, or the next append would be glued to it and lost at the next start.
          await handle.truncate(this.size).catch(() => undefined);
          throw error;
        }
        this.size += bytes.length;
      });
      for (const p of batch) p.resolve();
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }

  private read(parse: (value: unknown) => T | null): LogContents<T> {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], skipped: 0 };
      throw error;
    }
    const records: T[] = [];
    let skipped = 0;
    this.tornTail = text !== '' && !text.endsWith('\n');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      let record: T | null = null;
      try {
        record = parse(JSON.parse(line));
      } catch {
        record = null;
      }
      if (record === null) skipped += 1;
      else records.push(record);
    }
    return { records, skipped };
  }
}

function shortWrite(file: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`ENOSPC: short write to ${file}`);
  error.code = 'ENOSPC';
  return error;
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // some filesystems refuse fsync on a directory; the rename is still atomic
  } finally {
    await handle.close();
  }
}
