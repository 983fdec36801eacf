import { Agent, request } from 'undici';
import type { ReportPoster } from '../domain/reporter.js';

/** The most of a board's answer that is read. */
const ANSWER_MAX_BYTES = 1024 * 1024;

export interface BoardConnection {
  post: ReportPoster;
  close(): Promise<void>;
}

/**
 * POSTs reports to `{board}/api/report` with the registration token, each within `timeoutMs`
 * (connecting, sending and reading the answer together). The connection is kept from one
 * report to the next (`intervalMs` apart): with TLS, one handshake, not one per report.
 */
export function boardConnection(
  board: string,
  token: string,
  timeoutMs: number,
  ca: string | null = null,
  intervalMs = 10_000,
): BoardConnection {
  // Idle longer than the interval. A board that says how long it keeps a connection
  // (`Keep-Alive: timeout=75`, the board's default) is believed, less undici's margin of a second
  // or two, so the agent gives the connection up before the board closes it.
  const keepMs = Math.max(30_000, 2 * intervalMs);
  const dispatcher = new Agent({
    // `ca` replaces the system's CAs for this board only (a board with its own CA).
    connect: ca === null ? { timeout: timeoutMs } : { timeout: timeoutMs, ca },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: keepMs,
    keepAliveMaxTimeout: Math.max(600_000, keepMs),
  });
  const url = `${board}/api/report`;
  const post: ReportPoster = async (json) => {
    const response = await request(url, {
      method: 'POST',
      dispatcher,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: json,
      signal: AbortSignal.timeout(timeoutMs),
    });
    let size = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > ANSWER_MAX_BYTES) {
        response.body.destroy();
        throw new Error('the board answered with more than 1 MiB');
      }
      chunks.push(buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, body };
  };
  return { post, close: () => dispatcher.close() };
}
