import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Document, isMap, parseDocument } from 'yaml';
import { replaceFileSync } from '../io/safe-write.js';
import type { EnrollArgs } from './enroll-args.js';

/** Where an enrolled agent keeps its data, relative to its config file. */
export const ENROLLED_DATA_DIR = 'panoptes-agent-data';

/**
 * The agent's config for an enrollment, as YAML text. A config already there is updated in
 * place (its comments, token, services and other fields kept): enrolling again after the board
 * made a new key only changes the name, the key and where to report.
 */
export function enrolledConfig(existing: string | null, args: EnrollArgs): string {
  const doc = existing === null ? new Document({}) : parseDocument(existing);
  if (doc.errors.length > 0 || !isMap(doc.contents)) {
    throw new Error(
      `${args.config} is there and is not an agent config (a YAML mapping); move it away or pass another --config`,
    );
  }
  const has = (key: string) => doc.has(key);
  if (existing === null) {
    doc.commentBefore =
      ' Panoptes agent, written by `panoptes-agent.mjs enroll`. Keep this file private (mode 0600):\n' +
      " token is the agent's own full-power token; board_key is what the board knows it by;\n" +
      ' bell_token opens POST /api/bell alone (what `hooks install claude|codex` hands the hooks).\n' +
      ' Services to publish: see docs/agent.md.';
  }
  doc.set('name', args.name);
  if (args.host !== undefined) doc.set('host', args.host);
  if (args.port !== undefined) doc.set('port', args.port);
  if (!has('token')) doc.set('token', randomBytes(32).toString('base64url'));
  doc.set('board_key', args.key);
  if (!has('bell_token')) doc.set('bell_token', randomBytes(32).toString('base64url'));
  if (!has('data_dir')) doc.set('data_dir', ENROLLED_DATA_DIR);
  // Enrolling is opting in, unless --no-updates; a choice already in the file is kept.
  if (args.noUpdates) doc.set('update_from_board', false);
  else if (!has('update_from_board')) doc.set('update_from_board', true);
  // The board's key as the command carried it: enrolling again with a new board pins its key.
  if (args.updateKey !== null) doc.set('update_key', args.updateKey);
  // --label given: the whole map (as the board's PUT does); none given: the file's are kept.
  if (args.labels !== null) doc.set('labels', { ...args.labels });
  doc.setIn(['report', 'board'], args.board);
  doc.setIn(['report', 'token'], args.registrationToken);
  if (args.interval !== undefined) doc.setIn(['report', 'interval'], args.interval);
  if (args.ca !== null) doc.setIn(['report', 'ca'], args.ca);
  return doc.toString();
}

/** Reads the config file if it is there (null if not). */
export function readExisting(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Writes `text` to `file` with mode 0600, atomically (a new file renamed over the old one), never
 * through a symbolic link.
 */
export function writePrivate(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  replaceFileSync(file, text, 0o600);
}
