import type Database from 'libsql';
import { STATE_TABLES } from '../state-tables.js';

/**
 * state.db's schema, versioned with PRAGMA user_version: append a migration, never edit one that
 * shipped. The tables are the same as PostgreSQL's (state-tables.ts), in SQLite's words.
 */
export const STATE_MIGRATIONS: readonly string[] = STATE_TABLES.sqlite;

/** Brings state.db to the current version (or throws, naming the problem). */
export function migrateState(db: Database.Database): void {
  const row = db.prepare('PRAGMA user_version').raw(true).get();
  const version = Array.isArray(row) ? Number(row[0]) : Number.NaN;
  if (!Number.isSafeInteger(version) || version > STATE_MIGRATIONS.length) {
    throw new Error(
      `state.db has schema version ${String(version)}, newer than this board knows (${STATE_MIGRATIONS.length}): written by a newer Panoptes?`,
    );
  }
  for (let v = version; v < STATE_MIGRATIONS.length; v += 1) {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(STATE_MIGRATIONS[v] ?? '');
      db.exec(`PRAGMA user_version = ${v + 1}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
}
