import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, expect } from 'vitest';
import WebSocket from 'ws';
import { type RunningProgram, startedPrograms } from '../../harness/processes.js';

/**
 * Every response body and header block `fetch` received and every WebSocket message (`ws`)
 * in this test file, from the moment this module is imported: the scan covers them without the
 * test having to hand them over.
 */
const captured: string[] = [];

const originalFetch = globalThis.fetch;
globalThis.fetch = async (...args: Parameters<typeof fetch>): Promise<Response> => {
  const response = await originalFetch(...args);
  captured.push(JSON.stringify([...response.headers]));
  try {
    response
      .clone()
      .text()
      .then(
        (text) => captured.push(text),
        () => undefined,
      );
  } catch {
    // a body already used cannot be cloned; the test holds it
  }
  return response;
};

const originalEmit = WebSocket.prototype.emit;
WebSocket.prototype.emit = function emit(
  this: WebSocket,
  event: string | symbol,
  ...args: unknown[]
) {
  if (event === 'message') captured.push(String(args[0]));
  return originalEmit.call(this, event, ...args);
};

/** What fetch and WebSocket clients of this test file received so far. */
export function capturedTexts(): readonly string[] {
  return captured;
}

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
  /** Other texts the test received (what `fetch` and `ws` received is scanned anyway). */
  texts?: readonly string[];
  /** Answers that hold a secret by design (an enroll answer: the key and the command). */
  allowText?: (text: string) => boolean;
  /** Output lines that may hold a secret by design (the embedded default's one address line). */
  allowLine?: (line: string) => boolean;
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
  // What was received may hold a secret by design (allowText); output and files never may.
  const received = (text: string, where: string) => {
    if (!input.allowText?.(text)) search(text, where);
  };
  for (const [i, r] of (input.recorders ?? []).entries()) {
    for (const [j, body] of r.bodies.entries()) received(body, `response ${j} of client ${i}`);
  }
  for (const [i, text] of (input.texts ?? []).entries()) received(text, `text ${i}`);
  for (const [i, text] of captured.entries()) received(text, `fetch or WebSocket text ${i}`);
  for (const program of input.programs ?? startedPrograms()) {
    for (const [i, line] of program.output.entries()) {
      if (input.allowLine?.(line)) continue;
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

/**
 * Registers, where it is called (at the end of a file or describe, so that it runs before the
 * afterAll that removes the test's directory), the scan of everything the file's tests received,
 * its programs' output and the files under `dirs`, for the secrets `input()` names.
 */
export function scanForSecretsAfterAll(input: () => SecretScanInput): void {
  afterAll(async () => {
    // Bodies being read by the capture finish first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expectNoSecrets(input());
  });
}

/**
 * The secrets in a board config's notification channels (the parts of each URL that may be a
 * token, password or key, and each webhook `secret`), for the scan: channel URLs are secrets
 * like tokens. Only those long enough to be told apart from ordinary text are returned.
 */
export function notifySecrets(config: {
  notify?: { channels?: { name?: string; url: string; secret?: string }[] } & Record<
    string,
    unknown
  >;
}): string[] {
  const out = new Set<string>();
  for (const c of config.notify?.channels ?? []) {
    if (c.secret !== undefined) out.add(c.secret);
    let url: URL;
    try {
      url = new URL(c.url);
    } catch {
      continue;
    }
    for (const part of [
      url.username,
      url.password,
      ...url.pathname.split('/'),
      ...url.searchParams.values(),
    ]) {
      const decoded = decodeURIComponent(part);
      if (decoded.length >= 16) out.add(decoded);
    }
  }
  return [...out];
}
