// The crash tests' seed, and what they read after a kill: files, SQLite, journal.
import { readdirSync, readFileSync } from 'node:fs';
import Database from 'libsql';
import { expect } from 'vitest';

export const SEED = Number(process.env.PANOPTES_CRASH_SEED ?? Date.now() % 1_000_000);

/**
 * Every line of every append-only file (the agent's record of ids) is whole JSON, except that
 * the last one may be torn; every snapshot file is whole JSON.
 */
export function checkFilesReadable(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    if (name.endsWith('.tmp')) continue; // a rename that never happened; never read
    const text = readFileSync(`${dataDir}/${name}`, 'utf8');
    if (name.endsWith('.json')) {
      expect(() => JSON.parse(text), `${name} is whole JSON`).not.toThrow();
      continue;
    }
    const lines = text.split('\n');
    lines.pop();
    for (const [i, line] of lines.entries()) {
      expect(() => JSON.parse(line), `${name} line ${i + 1} is whole JSON`).not.toThrow();
    }
  }
}

/** SQLite's own check of the embedded store's file after a kill: "ok", or what is wrong. */
export function integrity(dataDir: string): string {
  const db = new Database(`${dataDir}/state.db`);
  try {
    const rows = db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

export interface Entry {
  op: string;
  target: string;
  outcome: string;
  detail: string;
}
