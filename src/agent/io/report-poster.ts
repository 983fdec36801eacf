import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { ReportPoster } from '../domain/reporter.js';
import { AnswerTooLarge, httpCall } from './http-call.js';

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
  // (`Keep-Alive: timeout=75`, the board's default) is believed less a second by Node's agent,
  // so the agent gives the connection up before the board closes it.
  const keepMs = Math.max(30_000, 2 * intervalMs);
  const options = { keepAlive: true, maxSockets: 1, timeout: keepMs };
  const agent = board.startsWith('https:')
    ? // `ca` replaces the system's CAs for this board only (a board with its own CA).
      new HttpsAgent(ca === null ? options : { ...options, ca })
    : new HttpAgent(options);
  const url = `${board}/api/report`;
  const inFlight = new Set<Promise<unknown>>();
  const post: ReportPoster = async (json) => {
    const call = send(json);
    inFlight.add(call);
    try {
      return await call;
    } finally {
      inFlight.delete(call);
    }
  };
  const send: ReportPoster = async (json) => {
    let answer: Awaited<ReturnType<typeof httpCall>>;
    try {
      answer = await httpCall({
        url,
        method: 'POST',
        agent,
        timeoutMs,
        maxBytes: ANSWER_MAX_BYTES,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: json,
      });
    } catch (error) {
      if (error instanceof AnswerTooLarge)
        throw new Error('the board answered with more than 1 MiB');
      throw error;
    }
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      body = undefined;
    }
    return { status: answer.status, body };
  };
  return {
    post,
    // A report in flight finishes on the connection it began on, then the connection closes.
    close: async () => {
      await Promise.allSettled([...inFlight]);
      agent.destroy();
    },
  };
}
