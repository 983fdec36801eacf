import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { clientAddress, type TrustedProxies } from '../../shared/http/client-address.js';
import { errorAnswer, logRequest } from '../../shared/http/http-app.js';
import { isPrintableText } from '../../shared/http/printable-check.js';
import type { ValidationIssue } from '../../shared/http/pydantic.js';
import { isJsonContentType } from '../../shared/http/route-answer.js';
import { checkBody, isPlainBody, parseJsonBody } from '../../shared/http/validation-hook.js';
import type { Logger } from '../../shared/logger.js';
import type { Report } from '../../shared/wire/report.js';
import type { TokenRule } from '../auth/guard.js';
import type { Board } from '../domain/board.js';
import type { Who } from '../schemas.js';
import { REPORT_LIMIT_BYTES, REPORT_SCHEMA } from './action-routes.js';
import { AnswerBatch } from './answer-batch.js';
import { reportBodyIssues } from './report-text.js';

export interface ReportFastPathOptions {
  board: Board;
  tokens: TokenRule;
  trustedProxies: TrustedProxies;
  logger: Logger;
}

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** Who sends a report the fast path takes, and from where. */
interface Sender {
  who: Who;
  address: string;
}

/**
 * POST /api/report beside Fastify's pipeline: the route it stands in
 * for costs Fastify's routing, hooks, content-type parser and reply per report, half of the
 * board's CPU for one. Only a report the route would take is handled here: exactly
 * `POST /api/report`, a JSON Content-Type, a Content-Length within the route's limit, no
 * Upgrade, and a token the rule accepts (TokenRule, the route's own check). Anything else goes
 * to Fastify untouched, before a byte of its body is read, so refusals are journaled and
 * counted in one place. From the body on it calls what the route calls: the same JSON parser
 * (parseJsonBody), the same body check and compiled schema (checkBody with the route's schema),
 * `Board.report`, and the same error answers (errorAnswer); test/compat/ runs against it.
 * Its answers are written together at the end of each turn of the event loop (AnswerBatch).
 */
export function installReportFastPath(app: FastifyInstance, options: ReportFastPathOptions): void {
  let closing = false;
  const debug = options.logger.isLevelEnabled('debug');
  app.addHook('preClose', async () => {
    closing = true;
  });
  const server = app.server;
  const batch = new AnswerBatch((error) =>
    options.logger.error({ err: error }, 'an answer to a report could not be written'),
  );
  const taking = { ...options, batch, debug };
  const take = (request: IncomingMessage, response: ServerResponse, sender: Sender): void =>
    takeReport(request, response, sender, taking);
  const fastify = server.listeners('request') as Listener[];
  server.removeAllListeners('request');
  const rest: Listener = (request, response) => {
    for (const listener of fastify) listener.call(server, request, response);
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const sender = closing ? null : acceptedReport(request, options);
    if (sender === null) rest(request, response);
    else take(request, response, sender);
  });
}

/** Who sends this request when the fast path may take it whole; else null (Fastify takes it). */
function acceptedReport(request: IncomingMessage, options: ReportFastPathOptions): Sender | null {
  if (request.method !== 'POST' || request.url !== '/api/report') return null;
  const headers = request.headers;
  if (headers.upgrade !== undefined || headers['transfer-encoding'] !== undefined) return null;
  if (!isJsonContentType(headers['content-type'])) return null;
  const length = Number(headers['content-length']);
  if (!(length >= 1 && length <= REPORT_LIMIT_BYTES)) return null;
  const address = clientAddress(
    request.socket.remoteAddress ?? '',
    headers,
    options.trustedProxies,
  );
  const who = options.tokens.acceptedAs(address, headers.authorization, 'report');
  return who === null ? null : { who, address };
}

function takeReport(
  request: IncomingMessage,
  response: ServerResponse,
  sender: Sender,
  options: ReportFastPathOptions & { batch: AnswerBatch; debug: boolean },
): void {
  const started = performance.now();
  const done = (status: number, headers: Record<string, string>, body: unknown): void =>
    options.batch.add(() => {
      send(response, status, headers, body);
      if (options.debug)
        logRequest(options.logger, request, sender.address, status, performance.now() - started);
    });
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    answer(bytes, sender.who, options).then(
      (result) => done(result.status, result.headers, result.body),
      (error: unknown) => {
        const failed = errorAnswer(error, REPORT_LIMIT_BYTES);
        if (failed.status === 500) options.logger.error({ err: error }, 'unhandled error');
        done(failed.status, failed.headers, failed.body);
      },
    );
  });
}

async function answer(
  bytes: Buffer,
  who: Who,
  options: ReportFastPathOptions,
): Promise<{ status: number; headers: Record<string, string>; body: unknown }> {
  const parsed = parseJsonBody(bytes);
  const issues: ValidationIssue[] = [];
  const printable = isPrintableText(bytes);
  const body = checkBody(REPORT_SCHEMA, parsed, printable || isPlainBody(bytes), issues, printable);
  if (issues.length === 0) issues.push(...reportBodyIssues(body as Record<string, unknown>));
  if (issues.length > 0) return { status: 422, headers: {}, body: { detail: issues } };
  const result = await options.board.report(who, body as Report);
  return { status: result.status, headers: {}, body: result.body };
}

function send(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: unknown,
): void {
  const json = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
  });
  response.end(json);
}
