import { expect } from 'vitest';

/** The operator token, board key and registration token of the agent end-to-end tests. */
export const OPERATOR = 'operator-token-e2e-4f9c2a7b1d0e';
export const BOARD_KEY = 'board-key-e2e-8a1b6c3d5e7f90';
export const REGISTRATION = 'registration-token-e2e-3c5e7a9b';
export const SECRETS = [OPERATOR, BOARD_KEY, REGISTRATION];

/** An answer, with its body as text and (when it is JSON) parsed. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely; the assertions check them
  json: any;
}

export interface CallOptions {
  /** Sent as `Authorization: Bearer …` unless `inQuery`. */
  token?: string;
  inQuery?: boolean;
  body?: unknown;
  /** A raw body, sent as is. */
  raw?: string;
  headers?: Record<string, string>;
}

/** A small HTTP client that keeps every body it received, for the secret scan. */
export class Http {
  readonly seen: string[] = [];
  constructor(readonly base: string) {}

  get(path: string, options: CallOptions = {}): Promise<Answer> {
    return this.call('GET', path, options);
  }

  post(path: string, options: CallOptions = {}): Promise<Answer> {
    return this.call('POST', path, options);
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    let url = `${this.base}${path}`;
    if (options.token !== undefined) {
      if (options.inQuery) {
        url += `${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(options.token)}`;
      } else {
        headers.authorization = `Bearer ${options.token}`;
      }
    }
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    this.seen.push(text, [...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n'));
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }
}

/** Asserts that no secret occurs in any of the texts (bodies, headers, log lines). */
export function expectNoSecrets(texts: readonly string[], secrets: readonly string[] = SECRETS) {
  const all = texts.join('\n');
  expect(all.length).toBeGreaterThan(0);
  for (const secret of secrets) expect(all).not.toContain(secret);
}

/** Polls `probe` until it returns a value other than undefined (at most `tries` × 50 ms). */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  tries = 300,
): Promise<T> {
  for (let i = 0; i < tries; i += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The YAML of an agent config with the e2e credentials and `rest` appended. */
export function agentYaml(rest = '', name = 'web1'): string {
  return `name: ${name}\ntoken: ${OPERATOR}\nboard_key: ${BOARD_KEY}\n${rest}`;
}
