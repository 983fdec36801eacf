#!/usr/bin/env node
import { request } from 'undici';
import { BELL_USAGE, bellRequest, parseBellArgs } from './bell-args.js';

/** Time for the whole call; a hook must never hang the coding agent. */
const TIMEOUT_MS = 5000;
const STDIN_MAX_BYTES = 1024 * 1024;

/**
 * panoptes-bell: rings a session's bell on an agent. Exits 0 when the agent took it, 1 otherwise
 * (never 2, which a Claude Code hook would take as "block").
 */
async function main(): Promise<number> {
  const args = parseBellArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(BELL_USAGE);
    return 0;
  }
  const payload = args.hook ? await readPayload() : null;
  const { url, token, bell } = bellRequest(args, process.env, process.cwd(), payload);
  const response = await request(`${url}/api/bell`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(bell),
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await response.body.text();
  if (response.statusCode === 200) return 0;
  process.stderr.write(
    `panoptes-bell: the agent answered ${response.statusCode}: ${text.slice(0, 500)}\n`,
  );
  return 1;
}

async function readPayload(): Promise<unknown> {
  if (process.stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > STDIN_MAX_BYTES) throw new Error('the hook payload on stdin is over 1 MiB');
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('--hook: stdin is not a JSON hook payload');
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`panoptes-bell: ${message}\n`);
    process.exitCode = 1;
  },
);
