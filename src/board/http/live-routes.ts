import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { presentedToken } from '../../shared/http/tokens.js';
import type { EventHub } from '../domain/events.js';
import type { Machine } from '../domain/machine.js';
import type { Registry } from '../domain/registry.js';
import { Detail } from '../schemas.js';
import { recordBytes } from '../view/machine-record.js';
import type { TokenChanges, TokenRule } from './auth.js';
import { LiveClient } from './live-client.js';

export interface LiveOptions {
  registry: Registry;
  events: EventHub;
  /** Which token opens the board now, and when that changes (feeds of an old one are closed). */
  tokens: Pick<TokenRule, 'opensBoard'>;
  tokenChanges: TokenChanges;
  /** How often changed machines are sent (they are coalesced in between). */
  flushMs?: number;
  /** A client with more than this many bytes unsent is dropped. */
  maxBufferedBytes?: number;
  pingMs?: number;
}

/**
 * GET /api/live: a WebSocket that sends the board once, then each changed machine (coalesced
 * per flush), each removed machine and each journal entry. Slow or silent clients are dropped.
 */
export async function liveRoutes(app: FastifyInstance, options: LiveOptions): Promise<void> {
  const flushMs = options.flushMs ?? 100;
  const maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024;
  const clients = new Map<WebSocket, LiveClient>();
  // The token each feed was opened with: a reload that replaces it closes the feed.
  const openedWith = new WeakMap<WebSocket, string>();
  const stopWatching = options.tokenChanges.subscribe(() => {
    for (const socket of clients.keys()) {
      const token = openedWith.get(socket);
      if (token !== undefined && options.tokens.opensBoard(token)) continue;
      clients.delete(socket);
      socket.close(1008, 'the board token changed');
    }
  });
  // Changed machines by name, serialised at the flush (once however often they changed).
  const changed = new Map<string, Machine>();

  const broadcast = (message: string): void => {
    for (const client of clients.values()) client.send(message);
  };

  const unsubscribe = options.events.subscribe({
    machineChanged: (m) => {
      if (clients.size > 0) changed.set(m.name, m);
    },
    machineRemoved: (name) => {
      changed.delete(name);
      broadcast(JSON.stringify({ type: 'removed', name }));
    },
    journalAppended: (entry) => broadcast(JSON.stringify({ type: 'journal', entry })),
  });
  const flusher = setInterval(() => {
    if (changed.size === 0) return;
    const messages = [...changed.values()].map(
      (m) => `{"type":"machine","machine":${recordBytes(m).toString('utf8')}}`,
    );
    changed.clear();
    for (const message of messages) broadcast(message);
  }, flushMs);
  const alive = new WeakSet<WebSocket>();
  const pinger = setInterval(() => {
    for (const socket of clients.keys()) {
      if (!alive.has(socket)) {
        socket.terminate();
        clients.delete(socket);
        continue;
      }
      alive.delete(socket);
      socket.ping();
    }
  }, options.pingMs ?? 30_000);
  app.addHook('onClose', async () => {
    clearInterval(flusher);
    clearInterval(pinger);
    unsubscribe();
    stopWatching();
    for (const socket of clients.keys()) socket.close(1001, 'board shutting down');
  });

  await app.register(websocket, {
    options: { maxPayload: 64 * 1024 },
    // A client breaking the protocol (a frame over 64 KiB, a bad opcode) or vanishing is the
    // client's doing: noted at debug level, not logged as an error of the board.
    errorHandler: (error, socket, request) => {
      const code = (error as { code?: string }).code ?? '';
      if (code.startsWith('WS_ERR_') || code === 'ECONNRESET' || code === 'EPIPE') {
        request.log.debug({ code }, 'live client broke the protocol; dropped');
      } else {
        request.log.error({ err: error }, 'live connection failed');
      }
      clients.delete(socket);
      socket.terminate();
    },
  });
  app.route({
    method: 'GET',
    url: '/api/live',
    // A WebSocket, which FastAPI leaves out of the document too; info.description names it.
    schema: {
      hide: true,
      summary: 'Live updates (WebSocket): the board, then changed machines and journal entries',
      description:
        'Messages: {"type":"board","board":…} once, then {"type":"machine","machine":…}, ' +
        '{"type":"removed","name":…} and {"type":"journal","entry":…}. Token in the header or ?token=. ' +
        'A plain HTTP GET is answered 426.',
      response: { 426: Detail },
    },
    // A plain GET (no upgrade) gets a FastAPI-shaped answer instead of an empty 404.
    handler: async (_request, reply) =>
      reply
        .code(426)
        .header('upgrade', 'websocket')
        .send({ detail: 'Upgrade Required: this is a WebSocket' }),
    wsHandler: (socket, request) => {
      const token = presentedToken(request.headers.authorization, request.query);
      if (token !== null) openedWith.set(socket, token);
      const client = new LiveClient(socket, maxBuffered, (buffered) => {
        app.log.warn({ buffered }, 'live client too slow; dropped');
        clients.delete(socket);
      });
      clients.set(socket, client);
      alive.add(socket);
      socket.on('pong', () => alive.add(socket));
      socket.on('close', () => clients.delete(socket));
      socket.on('error', () => clients.delete(socket));
      // Clients have nothing to say; anything they send is ignored.
      socket.on('message', () => undefined);
      const view = options.registry.view();
      client.sendBoard(view.bytes, view.release);
    },
  });
}
