import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { ConfigProblem } from '../config/config-error.js';
import { Type } from '../typebox.js';

/** A file path as written in a config file (relative to the file's directory). */
export const FilePath = Type.String({ minLength: 1 });

/** `tls: {cert, key}` as written in either program's config file. */
export const TlsFile = Type.Object(
  { cert: FilePath, key: FilePath },
  { additionalProperties: false },
);

/** A certificate and its private key, read from their files (PEM text). */
export interface TlsPair {
  cert: string;
  key: string;
}

const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----/;

/**
 * Reads a PEM file named in a config file. A missing, unreadable or non-PEM file is a problem of
 * `field` (the text is never quoted: a key file's content is a secret).
 */
export function readPem(
  path: string,
  baseDir: string | null,
  field: string,
  problems: ConfigProblem[],
): string | null {
  const file = isAbsolute(path) || baseDir === null ? path : join(baseDir, path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    problems.push({ field, problem: `cannot read ${file} (${code})` });
    return null;
  }
  if (!PEM_BLOCK.test(text)) {
    problems.push({ field, problem: `${file} holds no PEM block (-----BEGIN …-----)` });
    return null;
  }
  return text;
}

/** Reads `tls: {cert, key}`; null (with problems) when either file cannot be used. */
export function readTlsPair(
  tls: { cert: string; key: string },
  baseDir: string | null,
  field: string,
  problems: ConfigProblem[],
): TlsPair | null {
  const cert = readPem(tls.cert, baseDir, `${field}.cert`, problems);
  const key = readPem(tls.key, baseDir, `${field}.key`, problems);
  if (cert === null || key === null) return null;
  // Checked here so that a bad pair stops a start, or is refused by a reload, instead of
  // failing each handshake later.
  const problem = contextProblem({ cert, key });
  if (problem !== null) {
    problems.push({ field, problem: `the certificate and key cannot be used: ${problem}` });
    return null;
  }
  return { cert, key };
}

/** Reads a `ca: FILE` (one or more PEM certificates); null (with a problem) when unusable. */
export function readCa(
  path: string,
  baseDir: string | null,
  field: string,
  problems: ConfigProblem[],
): string | null {
  const ca = readPem(path, baseDir, field, problems);
  if (ca === null) return null;
  const problem = contextProblem({ ca });
  if (problem !== null) {
    problems.push({ field, problem: `not a usable CA certificate: ${problem}` });
    return null;
  }
  return ca;
}

function contextProblem(options: { cert?: string; key?: string; ca?: string }): string | null {
  try {
    createSecureContext(options);
    return null;
  } catch (error) {
    // OpenSSL's reason (e.g. "key values mismatch"); never the file's content.
    const e = error as { reason?: unknown; message?: unknown };
    return String(e.reason ?? e.message ?? 'rejected by OpenSSL').slice(0, 200);
  }
}
