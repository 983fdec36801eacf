import { mkdirSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Reads a JSON file written by `writeSnapshot`; null when absent or unreadable. */
export function readSnapshot(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Writes a JSON file atomically: temp file, fsync, rename. */
export async function writeSnapshot(file: string, value: unknown): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.tmp`;
  const out = await open(temp, 'w');
  try {
    await out.writeFile(JSON.stringify(value));
    await out.datasync();
  } finally {
    await out.close();
  }
  await rename(temp, file);
}
