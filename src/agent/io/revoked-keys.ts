import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { replaceFile } from './safe-write.js';

export const REVOKED_FILE = 'revoked-board-keys';

const hash = (key: string) => createHash('sha256').update(key).digest('hex');

/**
 * The board keys a board said it revoked, kept in the data directory (`revoked-board-keys`,
 * 0600) as one SHA-256 (hex) per line, so the file holds no key: the agent refuses them from the
 * moment the board says so and after a restart. A new key, from adding the machine again, is not
 * among them. The file is small (a line per revocation) and rewritten whole, atomically.
 */
export class RevokedKeys {
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private readonly hashes: Set<string>,
  ) {}

  /** Reads the revoked keys of the data directory `dir` (none when the file is not there). */
  static async open(dir: string): Promise<RevokedKeys> {
    const path = join(dir, REVOKED_FILE);
    let text = '';
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const hashes = new Set(text.split('\n').filter((line) => /^[0-9a-f]{64}$/.test(line)));
    return new RevokedKeys(path, hashes);
  }

  /** Whether `key` was revoked. */
  has(key: string | null): boolean {
    return key !== null && this.hashes.has(hash(key));
  }

  /**
   * Takes `key` as revoked: `has` says so at once; the file is written before the promise
   * resolves. Answers false (and writes nothing) for a key already revoked.
   */
  add(key: string): { added: boolean; written: Promise<void> } {
    const h = hash(key);
    if (this.hashes.has(h)) return { added: false, written: Promise.resolve() };
    this.hashes.add(h);
    const written = this.writing.then(() => this.write());
    this.writing = written.catch(() => undefined);
    return { added: true, written };
  }

  private async write(): Promise<void> {
    await replaceFile(this.path, [...this.hashes].map((h) => `${h}\n`).join(''), 0o600);
  }
}
