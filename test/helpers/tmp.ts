import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A scratch directory removed by `cleanup()`. */
export interface TempDir {
  path: string;
  /** Writes a file under the directory (creating parents) and returns its absolute path. */
  write(name: string, text: string): string;
  cleanup(): void;
}

export function tempDir(prefix = 'panoptes-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    write(name, text) {
      const file = join(path, name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    cleanup() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}
