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
 * (connecting, sending and reading the answer together).
 */
export function boardConnection(
  board: string,
  token: string,
  timeoutMs: number,
  ca: string | null = null,
): BoardConnection {
  const dispatcher = new Agent({
    // `ca` replaces the system's CAs for this board only (a board with its own CA).
    connect: ca === null ? { timeout: timeoutMs } : { timeout: timeoutMs, ca },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 30_000,
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
