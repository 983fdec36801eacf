import { createServer, type Server, type Socket } from 'node:net';
import { stringify } from 'yaml';
import type { TempDir } from './tmp.js';

/** Writes `board.yaml` (a JSON-compatible object) under `dir/name/` and returns the directory. */
export function writeBoardConfig(
  dir: TempDir,
  name: string,
  config: Record<string, unknown>,
): string {
  dir.write(`${name}/board.yaml`, stringify(config));
  return `${dir.path}/${name}`;
}

/** Writes an agent's YAML file and returns its path. */
export function writeAgentConfig(
  dir: TempDir,
  name: string,
  config: Record<string, unknown>,
): string {
  return dir.write(`${name}.yaml`, stringify(config));
}

/** A TCP server on 127.0.0.1 that accepts connections and never answers. */
export async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no address');
  return address.port;
}

/** What an HTTP call returned. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/**
 * An HTTP client for the tests that keeps every body it received, so a suite can check at the
 * end that no secret ever appeared in one.
 */
export class Recorder {
  readonly bodies: string[] = [];

  async call(url: string, init: RequestInit & { token?: string } = {}): Promise<Reply> {
    const headers = new Headers(init.headers);
    if (init.token !== undefined) headers.set('authorization', `Bearer ${init.token}`);
    const response = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(20_000) });
    const text = await response.text();
    this.bodies.push(text);
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /** Every secret that appears in a recorded body or in the given extra texts. */
  leaks(secrets: readonly string[], extra: readonly string[] = []): string[] {
    const all = [...this.bodies, ...extra].join('\n');
    return secrets.filter((s) => all.includes(s));
  }
}

/** Waits until a program's log has a "reload refused" line naming `file` and each of `fields`. */
export async function reloadRefusalsLogged(
  output: readonly string[],
  file: string,
  fields: readonly string[],
): Promise<void> {
  for (const field of fields) {
    await eventually(
      async () =>
        output.some(
          (l) =>
            l.includes('reload refused') &&
            l.includes(`"file":"${file}"`) &&
            l.includes(`"field":"${field}"`),
        )
          ? true
          : undefined,
      `a log line naming ${field}`,
    );
  }
}

/** Polls `check` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/**
 * Rings a bell on an agent (POST /api/bell with `token`); answers its status. Then waits a few
 * ms, so that the next bell has a later time (tests order sessions by when they rang).
 */
export async function ringBell(
  http: Recorder,
  agentUrl: string,
  token: string,
  bell: { session: string; why: string; text: string },
): Promise<number> {
  const r = await http.call(`${agentUrl}/api/bell`, {
    method: 'POST',
    token,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(bell),
  });
  await new Promise((resolve) => setTimeout(resolve, 5));
  return r.status;
}
