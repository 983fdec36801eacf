// The client that sends generated requests, with the credentials each one presents.
import { Client } from 'undici';
import type { FuzzAnswer, FuzzRequest } from './fuzz-requests.js';

/** Authorization headers that are not quite right, around a valid token. */
function malformed(token: string, variant: number): string {
  const variants = [
    `Basic ${Buffer.from(`u:${token}`).toString('base64')}`,
    'Bearer',
    'Bearer ',
    `Bearer ${token} extra`,
    `Bearer\t${token}`,
    `bearer ${token}`,
    `Token ${token}`,
    `Bearer ${token.slice(0, -1)}`,
    `Bearer ${token}${token}`,
  ];
  return variants[variant % variants.length] as string;
}

/** Tokens by credential kind; `second` is the other valid token (registration, board key). */
export interface Tokens {
  main: string;
  second: string;
  wrong: string;
}

/**
 * Sends generated requests over keep-alive connections. Requests with a wrong token come from a
 * second loopback address (127.0.0.2), so the per-address limit on failed tokens blocks only it
 * (and its later requests exercise the 429).
 */
export class FuzzClient {
  private main: Client;
  private wrong: Client;
  /** Every body and header block received, for the secret scan. */
  readonly seen: string[] = [];
  sent = 0;
  /** Requests sent again after the connection failed under them. */
  retried = 0;
  /** How many answers of each status, by the request's kind. */
  readonly statuses: Record<string, Record<number, number>> = {};

  constructor(
    private readonly base: string,
    private readonly tokens: Tokens,
  ) {
    this.main = this.client('127.0.0.1');
    this.wrong = this.client('127.0.0.2');
  }

  private client(localAddress: string): Client {
    return new Client(this.base, {
      pipelining: 1,
      keepAliveTimeout: 4000,
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
      localAddress,
    });
  }

  /**
   * Whether a request is sent from the second address: malformed headers and generated
   * `token=` parameters may carry a wrong token too, and the main address must never be blocked.
   */
  usesSecondAddress(req: FuzzRequest): boolean {
    return (
      req.credential.startsWith('wrong') ||
      req.credential.startsWith('malformed') ||
      /[?&](token|%74oken)(=|&|$)/i.test(req.path)
    );
  }

  /** Sends one request; a connection error is returned, not thrown. */
  async send(req: FuzzRequest): Promise<FuzzAnswer | { error: string }> {
    const headers: Record<string, string> = { ...req.headers };
    let path = req.path;
    const token =
      req.credential.startsWith('main') || req.credential.startsWith('malformed')
        ? this.tokens.main
        : req.credential.startsWith('second')
          ? this.tokens.second
          : req.credential.startsWith('wrong')
            ? this.tokens.wrong
            : null;
    if (token !== null) {
      if (req.credential.startsWith('malformed')) {
        headers.authorization = malformed(token, Number(req.credential.split('-')[1]));
      } else if (req.credential.endsWith('query')) {
        path += `${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
      } else {
        headers.authorization = `Bearer ${token}`;
      }
    }
    const fromSecond = this.usesSecondAddress(req);
    this.sent += 1;
    let answer = await this.once(fromSecond, req.method, path, headers, req.body);
    if ('error' in answer) {
      // The server may close a keep-alive connection after an answer (431, 400, 413) before
      // the client sees it; the next request on it then fails. Retried once on a fresh one.
      this.retried += 1;
      answer = await this.once(fromSecond, req.method, path, headers, req.body);
    }
    const byStatus = this.statuses[req.kind] ?? {};
    this.statuses[req.kind] = byStatus;
    const status = 'error' in answer ? 0 : answer.status;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    return answer;
  }

  private async once(
    fromSecond: boolean,
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | Uint8Array | null,
  ): Promise<FuzzAnswer | { error: string }> {
    const client = fromSecond ? this.wrong : this.main;
    try {
      const response = await client.request({
        method,
        path,
        headers,
        ...(body === null ? {} : { body }),
      });
      const text = await response.body.text();
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(response.headers)) {
        flat[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
      }
      this.seen.push(text, JSON.stringify(flat));
      return { status: response.statusCode, headers: flat, text };
    } catch (error) {
      // The connection is gone (or undici refused the input): start a fresh one.
      const e = error as { code?: string; message?: string };
      await client.destroy().catch(() => undefined);
      if (client === this.main) this.main = this.client('127.0.0.1');
      else this.wrong = this.client('127.0.0.2');
      return { error: `${e.code ?? 'error'}: ${e.message ?? String(error)}` };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.main.close(), this.wrong.close()]);
  }
}
