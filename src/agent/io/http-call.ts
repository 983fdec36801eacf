import { type Agent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** One HTTP call's answer: its status and its body as text. */
export interface HttpAnswer {
  status: number;
  text: string;
}

/** The answer was longer than the caller reads. */
export class AnswerTooLarge extends Error {}

/** No answer within the time given (connecting, sending and reading together). */
export class CallTimedOut extends Error {}

/**
 * One request through node:http or node:https (the agent's own client: undici alone weighs
 * some 8 MB of a resting agent's memory). `url` is absolute, or a path when `socketPath` is set;
 * `signal` aborts it (as a time-out). The answer is read up to `maxBytes`.
 */
export function httpCall(options: {
  url: string;
  method: string;
  agent: Agent;
  timeoutMs: number;
  maxBytes: number;
  headers?: OutgoingHttpHeaders;
  body?: string;
  socketPath?: string;
  signal?: AbortSignal;
}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const target =
      options.socketPath === undefined
        ? new URL(options.url)
        : new URL(options.url, 'http://localhost');
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: OutgoingHttpHeaders = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = Buffer.byteLength(options.body);
    let settled = false;
    const finish = (error: Error | null, answer?: HttpAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error === null) resolve(answer as HttpAnswer);
      else reject(error);
    };
    const req = send(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method,
        headers,
        agent: options.agent,
        ...(options.socketPath === undefined ? {} : { socketPath: options.socketPath }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            response.destroy();
            req.destroy();
            finish(new AnswerTooLarge(`the answer is longer than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', (error) => finish(error));
        response.on('end', () => {
          // Most answers come in one chunk: no copy of it then.
          const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
          finish(null, { status: response.statusCode ?? 0, text: whole.toString('utf8') });
        });
      },
    );
    const timedOut = () => new CallTimedOut(`no answer within ${options.timeoutMs} ms`);
    const onAbort = () => {
      req.destroy();
      finish(timedOut());
    };
    const timer = setTimeout(onAbort, Math.max(1, options.timeoutMs));
    if (options.signal?.aborted === true) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (error) => finish(error));
    req.end(options.body);
  });
}
