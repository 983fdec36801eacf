import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import swagger from '@fastify/swagger';
import Fastify, {
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Logger } from '../logger.js';
import { clientAddress, TrustedProxies } from './client-address.js';
import { BODY_LIMIT_BYTES, errors, HttpError } from './errors.js';
import { type OpenApiInfo, openApiTransform } from './openapi.js';
import { guardSockets } from './socket-guard.js';
import { JsonInvalid, jsonInvalidBody, parseJsonBody, validateRequest } from './validation-hook.js';
import { handshakeProblem, isUpgrade } from './websocket-handshake.js';

export interface HttpAppOptions {
  logger: Logger;
  openapi: OpenApiInfo;
  bodyLimit?: number;
  /** How long an idle keep-alive connection stays open (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** Seconds a client may take to send its request headers and body (slowloris guard). */
  requestTimeoutS?: number;
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

/** Seconds a client may take to send its request headers (at most the request time-out). */
const HEADERS_TIMEOUT_S = 10;

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

/**
 * A Fastify instance with the behaviour both programs share: FastAPI-shaped errors (422, 404,
 * 405, 413), one JSON parser, no schema-driven serialisation, and an OpenAPI 3.1 document.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const bodyLimit = options.bodyLimit ?? BODY_LIMIT_BYTES;
  const serverOptions: FastifyServerOptions = {
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    requestTimeout: (options.requestTimeoutS ?? 30) * 1000,
    connectionTimeout: 0,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 5000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 500 },
    clientErrorHandler: (error, socket) => answerClientError(error, socket, options.logger),
    // A path Fastify cannot decode or route (bad percent-encoding, a parameter over 500
    // characters) is answered FastAPI-shaped too, not with Fastify's own error body.
    frameworkErrors: (error, _request, reply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const detail = tooLong
        ? 'URI Too Long: a path parameter is over 500 characters'
        : 'Bad Request: the path is not valid percent-encoded UTF-8';
      const body = JSON.stringify({ detail });
      reply.raw.writeHead(tooLong ? 414 : 400, {
        'content-type': 'application/json; charset=utf-8',
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
  const app = Fastify({
    ...serverOptions,
    http: {
      headersTimeout: Math.min(HEADERS_TIMEOUT_S * 1000, requestTimeoutMs),
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: 1000,
    },
  });

  // Validation is done by validateRequest so that every part is checked at once; Fastify's
  // own compiler only needs to accept the schemas, which also feed the OpenAPI document.
  const trusted = options.trustedProxies ?? new TrustedProxies();
  app.decorateRequest('clientAddress', {
    getter(this: FastifyRequest): string {
      return clientAddress(this.socket?.remoteAddress ?? '', this.headers, trusted);
    },
  });
  guardSockets(app, options.shutdownGraceMs);
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.addHook('preValidation', validateRequest);
  // A WebSocket handshake that `ws` would refuse is refused here first, FastAPI-shaped (`ws`
  // answers plain text), before any route or token rule sees it.
  app.addHook('onRequest', async (request) => {
    if (!isUpgrade(request.headers)) return;
    const problem = handshakeProblem(request.method, request.headers);
    if (problem !== null) throw problem;
  });
  // One line per request, at debug level; the req serializer redacts `?token=`.
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug(
      {
        req: request.raw,
        client: request.clientAddress,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (request, text, done) => {
    const type = request.headers['content-type'];
    const body = text as string;
    if (type === undefined || JSON_TYPE.test(type)) {
      try {
        done(null, parseJsonBody(body));
      } catch (error) {
        done(error as Error, undefined);
      }
      return;
    }
    // FastAPI validates a non-JSON body as the raw text: it fails the object check with 422.
    done(null, body === '' ? undefined : body);
  });

  // A mirror of the routes, to tell "no such path" (404) from "not with this method" (405).
  const mirror = FindMyWay();
  const methodsInUse = new Set<HTTPMethod>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods as HTTPMethod[]) {
      if (mirror.hasRoute(method, route.url)) continue;
      mirror.on(method, route.url, () => undefined);
      methodsInUse.add(method);
    }
  });
  app.setNotFoundHandler(async (request) => {
    const path = request.url.split('?')[0] ?? '/';
    const allow = [...methodsInUse].filter((m) => mirror.find(m, path) !== null);
    if (allow.length > 0) throw errors.methodNotAllowed(allow);
    throw errors.notFound();
  });

  app.setErrorHandler(async (error, request, reply) => {
    if (error instanceof JsonInvalid) return reply.code(422).send(jsonInvalidBody(error));
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).headers(error.headers).send({ detail: error.message });
    }
    const fastifyError = error as { code?: string; statusCode?: number; message?: string };
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send({ detail: errors.tooLarge(bodyLimit).message });
    }
    const status = fastifyError.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return reply.code(status).send({ detail: fastifyError.message ?? 'Bad Request' });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: 'Internal Server Error' });
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
function answerClientError(error: Error & { code?: string }, socket: Socket, logger: Logger): void {
  if (socket.destroyed) return;
  if (error.code === 'ECONNRESET') {
    socket.destroy();
    return;
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
