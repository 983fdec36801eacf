import type { IncomingMessage } from 'node:http';
import type { FastifyReply } from 'fastify';
import { errors } from './errors.js';
import {
  encodeForRouter,
  parseQueryString,
  pythonUnquote,
  quoteLocation,
  type RouteDecision,
  RouteTable,
} from './starlette-routing.js';

export { RouteTable };

const DECODED = Symbol('decodedPath');
type Marked = IncomingMessage & { [DECODED]?: string };

/** What a request line asks for, as uvicorn hands it to Starlette. */
export interface RequestLine {
  method: string;
  /** The path, percent-decoded. */
  path: string;
  /** The raw query string, without the `?`. */
  query: string;
  host: string | undefined;
  scheme: 'http' | 'https';
}

/** Splits a raw request target at the first `?` (a `#` is part of the path or query). */
export function splitTarget(target: string): { path: string; query: string } {
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  return { path: pythonUnquote(rawPath), query: q < 0 ? '' : target.slice(q + 1) };
}

/**
 * Starlette's decision, except that a request carrying `?token=` is not redirected: the Location
 * would repeat the token in a response (docs/internals/decisions.md), so it is a 404 instead.
 */
function decideFor(table: RouteTable, line: RequestLine): RouteDecision {
  const decision = table.decide(line.method, line.path);
  if (decision.kind === 'redirect' && 'token' in parseQueryString(line.query)) {
    return { kind: 'none' };
  }
  return decision;
}

/** Where a 307 sends the client: Starlette's `URL(scope=…)` of the other path, quoted. */
export function redirectLocation(line: RequestLine, path: string): string {
  const base = line.host === undefined ? path : `${line.scheme}://${line.host}${path}`;
  return quoteLocation(line.query === '' ? base : `${base}?${line.query}`);
}

/** The routing of one app: its route table, and the decoded path of each request. */
export interface Routing {
  table: RouteTable;
  /** rewriteUrl: decodes the path once and gives find-my-way a URL it decodes to the same. */
  rewrite(req: IncomingMessage): string;
  /** Whether the route Fastify chose really serves this path (a parameter is never empty). */
  matches(req: IncomingMessage, routeUrl: string): boolean;
  /** What Starlette does with a request no route fully serves. */
  decide(req: IncomingMessage): { decision: RouteDecision; line: RequestLine };
}

/** The routing of an app whose routes go into `table`. */
export function routingFor(table: RouteTable): Routing {
  const lineOf = (req: Marked): RequestLine => {
    const target = splitTarget(req.url ?? '/');
    const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
    return {
      method: req.method ?? 'GET',
      path: req[DECODED] ?? target.path,
      query: target.query,
      host: req.headers.host,
      scheme: encrypted ? 'https' : 'http',
    };
  };
  return {
    table,
    rewrite(req: Marked) {
      const { path, query } = splitTarget(req.url ?? '/');
      req[DECODED] = path;
      // A target that is no absolute path (`*`, `http://…`) matches no route, as in Starlette.
      const routed = path.startsWith('/') ? encodeForRouter(path) : `/${encodeURIComponent(path)}`;
      const q = (req.url ?? '').indexOf('?');
      return q < 0 ? routed : `${routed}?${query.replaceAll('#', '%23')}`;
    },
    matches(req: Marked, routeUrl: string) {
      return table.serves(routeUrl, req[DECODED] ?? '');
    },
    decide(req: Marked) {
      const line = lineOf(req);
      return { decision: decideFor(table, line), line };
    },
  };
}

/** Answers a request no route serves: 405 with `Allow`, 307 to the other path, or 404. */
export function routeAnswer(
  found: { decision: RouteDecision; line: RequestLine },
  reply: FastifyReply,
): FastifyReply {
  const { decision, line } = found;
  if (decision.kind === 'method') throw errors.methodNotAllowed(decision.allow);
  if (decision.kind === 'redirect') {
    return reply.code(307).header('location', redirectLocation(line, decision.path)).send();
  }
  throw errors.notFound();
}

/**
 * The whole answer (then the connection closes) to a request line Node refuses but h11 takes:
 * a method Node does not know (`FOO /api/board`), which FastAPI routes like any other.
 */
export function rawRouteAnswer(table: RouteTable, packet: Buffer): string | null {
  const text = packet.toString('latin1');
  const lineEnd = text.indexOf('\r\n');
  const first = (lineEnd < 0 ? text : text.slice(0, lineEnd)).split(' ');
  if (first.length !== 3 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(first[0] ?? '')) return null;
  const method = first[0] as string;
  const target = splitTarget(first[1] ?? '/');
  const host = /\r\nhost:[ \t]*([^\r\n]*?)[ \t]*\r\n/i.exec(text)?.[1];
  const line: RequestLine = { method, ...target, host, scheme: 'http' };
  const decision = decideFor(table, line);
  if (decision.kind === 'redirect') {
    const location = redirectLocation(line, decision.path);
    return `HTTP/1.1 307 Temporary Redirect\r\nlocation: ${location}\r\ncontent-length: 0\r\nConnection: close\r\n\r\n`;
  }
  const detail = decision.kind === 'method' ? 'Method Not Allowed' : 'Not Found';
  const body = JSON.stringify({ detail });
  const allow = decision.kind === 'method' ? `allow: ${decision.allow.join(', ')}\r\n` : '';
  const status = decision.kind === 'method' ? '405 Method Not Allowed' : '404 Not Found';
  return (
    `HTTP/1.1 ${status}\r\n${allow}content-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** FastAPI's test for a JSON body: `application/json` or `application/*+json`, parsed as email does. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  // What agents send, answered without splitting it (the report path asks for every report).
  if (value === 'application/json') return true;
  const type = (value.split(';')[0] ?? '').trim().toLowerCase();
  const parts = type.split('/');
  if (parts.length !== 2 || parts[0] !== 'application') return false;
  const subtype = parts[1] ?? '';
  return subtype === 'json' || subtype.endsWith('+json');
}
