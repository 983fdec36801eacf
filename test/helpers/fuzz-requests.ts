// One generated request: its shape, the answer to it, how it is made and how it prints.
import fc from 'fast-check';
import { body, type Credential, credential, headers, method, query } from './fuzz-arbitraries.js';

/** One generated HTTP request; `path` includes the query string. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  credential: Credential;
  /** Free text shown when the case fails (what the generator meant to do). */
  kind: string;
}

/** What came back. */
export interface FuzzAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** A request to one endpoint: its method and path template, with hostile variations. */
export function requestTo(
  right: string,
  pathOf: fc.Arbitrary<string>,
  shaped: fc.Arbitrary<unknown> | null,
  kind: string,
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: method(right),
      path: pathOf,
      query,
      headers,
      body: body(shaped),
      credential,
    })
    .map((r) =>
      printable({
        method: r.method,
        path: `${r.path}${r.query}`,
        headers: r.headers,
        body: r.method === 'GET' || r.method === 'HEAD' ? null : r.body,
        credential: r.credential,
        kind,
      }),
    );
}

/** Makes fast-check print a generated value cut to 500 characters. */
export function shortPrinted<T extends object>(value: T): T {
  Object.defineProperty(value, fc.toStringMethod, {
    value: () => {
      const text = JSON.stringify(value, (_k, v: unknown) =>
        v instanceof Uint8Array ? `<${v.length} bytes>` : v,
      );
      return text.length > 500 ? `${text.slice(0, 500)}… (${text.length} chars)` : text;
    },
    enumerable: false,
  });
  return value;
}

/** Makes fast-check print a request short (bodies and headers can be megabytes). */
function printable(req: FuzzRequest): FuzzRequest {
  Object.defineProperty(req, fc.toStringMethod, { value: () => describe(req), enumerable: false });
  return req;
}

/** A short description of a request for a failure message (long parts cut). */
export function describe(req: FuzzRequest): string {
  const body =
    req.body === null
      ? 'no body'
      : typeof req.body === 'string'
        ? `body ${JSON.stringify(req.body.slice(0, 200))}${req.body.length > 200 ? `… (${req.body.length} chars)` : ''}`
        : `${req.body.length} bytes`;
  return `${req.kind}: ${req.method} ${req.path.slice(0, 300)} [${req.credential}] ${JSON.stringify(req.headers).slice(0, 300)} ${body}`;
}
