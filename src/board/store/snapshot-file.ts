import { mkdirSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { StoreHealth } from './store-health.js';

/** Reads a JSON file written by `writeSnapshot`; null when absent or unreadable. */
export function readSnapshot(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Writes a JSON file atomically: temp file, fsync, rename; through the store's health (a
 * failure counted and turned into a 503) when one is given.
 */
export function writeSnapshot(
  file: string,
  value: unknown,
  health: StoreHealth | null = null,
): Promise<void> {
  const write = () => writeAtomically(file, value);
  return health === null ? write() : health.guard(basename(file), write);
}

async function writeAtomically(file: string, value: unknown): Promise<void> {
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
