import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import swagger from '@fastify/swagger';
import Fastify, {
  type FastifyHttpsOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { Logger } from '../logger.js';
import type { TlsPair } from '../tls/pem-files.js';
import { clientAddress, TrustedProxies } from './client-address.js';
import { BODY_LIMIT_BYTES, errors, HttpError } from './errors.js';
import { lingerAfterEarlyAnswer } from './lingering-close.js';
import { type OpenApiInfo, openApiTransform } from './openapi.js';
import {
  isJsonContentType,
  RouteTable,
  type Routing,
  rawRouteAnswer,
  routeAnswer,
  routingFor,
} from './route-answer.js';
import { guardSockets } from './socket-guard.js';
import { parseQueryString } from './starlette-routing.js';
import {
  JsonInvalid,
  jsonInvalidBody,
  notePlainBody,
  parseJsonBody,
  validateRequest,
} from './validation-hook.js';
import { handshakeProblem, isUpgrade } from './websocket-handshake.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The path Starlette matches, when it differs from the route's URL (`:name{path}`). */
    path?: string;
  }
}

export interface HttpAppOptions {
  logger: Logger;
  openapi: OpenApiInfo;
  bodyLimit?: number;
  /** How long an idle keep-alive connection stays open (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** Seconds a client may take to send its request headers and body (slowloris guard). */
  requestTimeoutS?: number;
  /** Serve HTTPS (and WSS) with this certificate and key (PEM) instead of plain HTTP. */
  tls?: TlsPair | null;
  /** Reverse proxies whose X-Forwarded-For / Forwarded is believed (read on every request). */
  trustedProxies?: TrustedProxies;
  /** How long closing waits for in-flight requests and live sockets before cutting them. */
  shutdownGraceMs?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The client's address: the peer, or what a trusted proxy forwarded (see client-address). */
    readonly clientAddress: string;
  }
}

type Factories = Required<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
>;

/** Seconds a client may take to send its request headers (at most the request time-out). */
const HEADERS_TIMEOUT_S = 10;

/**
 * A Fastify instance with the behaviour both programs share: FastAPI-shaped errors (422, 404,
 * 405, 413), one JSON parser, no schema-driven serialisation, and an OpenAPI 3.1 document.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const bodyLimit = options.bodyLimit ?? BODY_LIMIT_BYTES;
  const routing = routingFor(new RouteTable());
  const serverOptions: FastifyServerOptions = {
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
    // Validation is done by validateRequest so that every part is checked at once; Fastify's
    // own compiler only needs to accept the schemas, which also feed the OpenAPI document.
    // Given as factories, Fastify never loads Ajv and fast-json-stringify (MBs of memory).
    schemaController: {
      compilersFactory: {
        // Fastify's types describe Ajv's compilers; any function of the same shape is taken.
        buildValidator: (() => () => (data: unknown) => ({
          value: data,
        })) as unknown as Factories['buildValidator'],
        buildSerializer: (() => () => (data: unknown) =>
          JSON.stringify(data)) as unknown as Factories['buildSerializer'],
      },
    },
    bodyLimit,
    requestTimeout: (options.requestTimeoutS ?? 30) * 1000,
    connectionTimeout: 0,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 5000,
    // Fastify's own 503 while closing has its error shape; the closing hook below answers.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // FastAPI answers HEAD on a GET route 405; a route that wants HEAD says so.
    exposeHeadRoutes: false,
    // The path is decoded once, as uvicorn does, in rewriteUrl; find-my-way then sees a path
    // whose every parameter it can decode, of any length (a long one is a 422, not a 414).
    rewriteUrl: (req) => routing.rewrite(req),
    routerOptions: { maxParamLength: 65_536, querystringParser: parseQueryString },
    clientErrorHandler: (error, socket) =>
      answerClientError(error, socket, options.logger, routing),
    // rewriteUrl hands find-my-way a well-formed path; should it still refuse one, 400.
    frameworkErrors: (_error, _request, reply) => {
      const body = JSON.stringify({ detail: 'Bad Request' });
      reply.raw.writeHead(400, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      reply.raw.end(body);
    },
  };
  // Slowloris: Fastify sets only requestTimeout, and Node then keeps its 60 s headersTimeout;
  // when that is the longer one Node swaps the two, so a body sent a byte a second was cut
  // only after 60 s, and Node looks for expired requests only every 30 s: a connection that
  // sent nothing lived 30-60 s. Found by the slowloris test.
  const requestTimeoutMs = (options.requestTimeoutS ?? 30) * 1000;
  const http = {
    headersTimeout: Math.min(HEADERS_TIMEOUT_S * 1000, requestTimeoutMs),
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: 1000,
  };
  // With `https`, Fastify passes only those options to https.createServer (not `http`), so the
  // slowloris settings go in there too. The instance is typed as an HTTP one: nothing here uses
  // what differs, and setServerCertificate reaches the TLS server when a reload needs it.
  const app: FastifyInstance =
    options.tls === undefined || options.tls === null
      ? Fastify({ ...serverOptions, http })
      : (Fastify({
          ...(serverOptions as unknown as FastifyHttpsOptions<HttpsServer>),
          https: { ...http, cert: options.tls.cert, key: options.tls.key },
        }) as unknown as FastifyInstance);

  const trusted = options.trustedProxies ?? new TrustedProxies();
  app.decorateRequest('clientAddress', {
    getter(this: FastifyRequest): string {
      return clientAddress(this.socket?.remoteAddress ?? '', this.headers, trusted);
    },
  });
  guardSockets(app, options.shutdownGraceMs);
  // A request that arrives while the server closes (pipelined, or on a connection still busy):
  // 503 in the shape of every other error, and the connection is closed after it.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Routing as Starlette does it, before any token is asked for: 405, 307 or 404.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // A route whose parameter spans segments names the path Starlette matches (`config.path`).
    routing.table.add(methods, route.url, route.config?.path);
  });
  app.addHook('onRequest', async (request, reply) => {
    if (closing) return answerClosing(reply);
    if (request.is404) return;
    if (!routing.matches(request.raw, request.routeOptions.url ?? '')) {
      return routeAnswer(routing.decide(request.raw), reply);
    }
    // Fastify refuses an empty or malformed Content-Type (415) before reading the body;
    // FastAPI reads it and validates it as text, and ignores the body of a route that takes
    // none. Only for the described routes, which this app's own body parser reads (a hidden
    // one, such as the agent's pass-through, keeps the header as it came).
    const type = request.headers['content-type'];
    const schema = request.routeOptions.schema as { body?: unknown; hide?: boolean } | undefined;
    if (type === undefined || schema === undefined || schema.hide === true) return;
    if (schema.body === undefined || !isJsonContentType(type)) {
      request.headers['content-type'] = 'application/octet-stream';
    }
  });
  app.setNotFoundHandler(async (request, reply) => routeAnswer(routing.decide(request.raw), reply));

  app.addHook('preValidation', validateRequest);
  // A WebSocket handshake that `ws` would refuse is refused here first, FastAPI-shaped (`ws`
  // answers plain text), before any route or token rule sees it.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!isUpgrade(request.headers)) {
      done();
      return;
    }
    const problem = handshakeProblem(request.method, request.headers);
    done(problem ?? undefined);
  });
  // FastAPI's JSONResponse says `application/json`, without a charset (JSON is UTF-8).
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.getHeader('content-type') === 'application/json; charset=utf-8') {
      reply.header('content-type', 'application/json');
    }
    done(null, payload);
  });
  // One line per request, at debug level; the req serializer redacts `?token=`. Not even
  // registered at other levels: a hook per request costs the report path (bench: reports).
  if (options.logger.isLevelEnabled('debug')) {
    app.addHook('onResponse', async (request, reply) => {
      logRequest(
        request.log,
        request.raw,
        request.clientAddress,
        reply.statusCode,
        reply.elapsedTime,
      );
    });
  }

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (request, bytes, done) => {
    // FastAPI reads no body for a route that takes none, and none of zero bytes.
    const schema = request.routeOptions.schema as { body?: unknown } | undefined;
    const buffer = bytes as Buffer;
    if (schema?.body === undefined || buffer.length === 0) {
      done(null, undefined);
      return;
    }
    if (isJsonContentType(request.headers['content-type'])) {
      try {
        const parsed = parseJsonBody(buffer);
        notePlainBody(request, buffer);
        done(null, parsed);
      } catch (error) {
        done(error as Error, undefined);
      }
      return;
    }
    // FastAPI validates any other body as the raw text: it fails the object check with 422.
    done(null, buffer.toString('utf8'));
  });

  app.setErrorHandler(async (error, request, reply) => {
    // An error answer may come before the body was read (413 from the Content-Length, 401).
    lingerAfterEarlyAnswer(request.raw, () => reply.removeHeader('connection'));
    const answer = errorAnswer(error, bodyLimit);
    if (answer.status === 500) request.log.error({ err: error }, 'unhandled error');
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.openapi.title, version: options.openapi.version },
    },
    transformObject: (documents) => {
      if (!('openapiObject' in documents)) return documents.swaggerObject;
      return openApiTransform(documents.openapiObject, options.openapi);
    },
  });
  return app;
}

/** The answer to a request that came while the server closes. */
function answerClosing(reply: FastifyReply): FastifyReply {
  return reply
    .code(503)
    .header('connection', 'close')
    .send({ detail: 'Service Unavailable: the server is shutting down' });
}

/** The line a request leaves in the log, at debug (the req serializer redacts `?token=`). */
export function logRequest(
  log: Pick<Logger, 'debug'>,
  req: IncomingMessage,
  client: string,
  status: number,
  ms: number,
): void {
  log.debug({ req, client, status, ms: Math.round(ms) }, 'request');
}

/** An error's answer, FastAPI-shaped: what the error handler sends (a 500 is to be logged). */
export function errorAnswer(
  error: unknown,
  bodyLimit: number,
): { status: number; headers: Record<string, string>; body: unknown } {
  if (error instanceof JsonInvalid)
    return { status: 422, headers: {}, body: jsonInvalidBody(error) };
  if (error instanceof HttpError) {
    return { status: error.statusCode, headers: error.headers, body: { detail: error.message } };
  }
  const fastifyError = error as { code?: string; statusCode?: number; message?: string };
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 413, headers: {}, body: { detail: errors.tooLarge(bodyLimit).message } };
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return { status, headers: {}, body: { detail: fastifyError.message ?? 'Bad Request' } };
  }
  return { status: 500, headers: {}, body: { detail: 'Internal Server Error' } };
}

/** What Node's parser could not take before there was a request: status and detail. */
function clientErrorStatus(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/**
 * Answers what Node's HTTP parser refuses (malformed request line or headers, headers over
 * 16 KiB, a request not received in time) FastAPI-shaped, like every other error, then closes
 * the connection. Fastify's default would answer `{"error", "message", "statusCode"}`.
 */
function answerClientError(
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
  logger: Logger,
  routing: Routing,
): void {
  if (socket.destroyed) return;
  if (error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  // A method Node's parser does not know is routed as FastAPI would: 405, 307 or 404.
  if (error.code === 'HPE_INVALID_METHOD' && Buffer.isBuffer(error.rawPacket) && socket.writable) {
    const answer = rawRouteAnswer(routing.table, error.rawPacket);
    if (answer !== null) {
      socket.end(answer);
      return;
    }
  }
  const status = clientErrorStatus(error.code);
  logger.debug({ code: error.code, status }, 'client error');
  // Only when no answer is under way on this connection (as Node's own handler checks).
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })
    ._httpMessage;
  if (socket.writable && (pending === undefined || pending === null || !pending.headersSent)) {
    const body = JSON.stringify({ detail: STATUS_CODES[status] ?? 'Bad Request' });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
