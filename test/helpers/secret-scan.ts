import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { type RunningProgram, startedPrograms } from './processes.js';

/** Where a secret was found: what kind of text, which one, and which secret (by position). */
export interface SecretHit {
  secret: number;
  where: string;
}

export interface SecretScanInput {
  /** Every token and key of the test's configs. */
  secrets: readonly string[];
  /** HTTP response bodies (and headers) the test received. */
  recorders?: readonly { bodies: readonly string[] }[];
  /** Other texts the test received: WebSocket messages, answers of other clients. */
  texts?: readonly string[];
  /** Programs whose output is searched; default: every program started in this test file. */
  programs?: readonly RunningProgram[];
  /** Directories searched recursively (data directories; config files are left out). */
  dirs?: readonly string[];
  /** Files left out of the directory search (the config files, which hold the secrets). */
  skipFile?: (path: string) => boolean;
}

/** Config files hold the secrets by design; everything else under a test's directory may not. */
const CONFIG_FILE = /\.(ya?ml)$|(^|\/)embedded-tokens\.json$/;

/** The forms a secret can take in text: as is, percent-encoded, JSON-escaped. */
function forms(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])];
}

function filesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      continue;
    }
    if (stat.isDirectory()) files.push(...filesUnder(path));
    else if (stat.isFile()) files.push(path);
  }
  return files;
}

/**
 * Searches everything a test saw and left behind (answers, WebSocket messages, the programs'
 * output and the files under its data directories) for every secret; returns each hit.
 */
export function scanForSecrets(input: SecretScanInput): SecretHit[] {
  const hits: SecretHit[] = [];
  const needles = input.secrets.map(forms);
  const search = (text: string, where: string) => {
    needles.forEach((variants, secret) => {
      if (variants.some((v) => v !== '' && text.includes(v))) hits.push({ secret, where });
    });
  };
  for (const [i, r] of (input.recorders ?? []).entries()) {
    for (const [j, body] of r.bodies.entries()) search(body, `response ${j} of client ${i}`);
  }
  for (const [i, text] of (input.texts ?? []).entries()) search(text, `text ${i}`);
  for (const program of input.programs ?? startedPrograms()) {
    for (const [i, line] of program.output.entries()) {
      search(line, `output line ${i} of pid ${program.pid}`);
    }
  }
  const skip = input.skipFile ?? ((path: string) => CONFIG_FILE.test(path));
  for (const dir of input.dirs ?? []) {
    for (const file of filesUnder(dir)) {
      if (skip(file)) continue;
      let text: string;
      try {
        text = readFileSync(file, 'latin1');
      } catch {
        continue;
      }
      search(text, `file ${relative(dir, file)}`);
    }
  }
  return hits;
}

/**
 * Fails the test when any secret appears anywhere the scan looks. The hit list names where
 * (never the secret itself, so the failure message does not print it either).
 */
export function expectNoSecrets(input: SecretScanInput): void {
  expect(input.secrets.length).toBeGreaterThan(0);
  for (const s of input.secrets) expect(s.length).toBeGreaterThanOrEqual(16);
  expect(scanForSecrets(input)).toEqual([]);
}

/** Keeps every message of a WebSocket-like emitter, for the scan. */
export function recordMessages(
  socket: { on(event: 'message', listener: (data: unknown) => void): unknown },
  into: string[],
): void {
  socket.on('message', (data) => into.push(String(data)));
}
