import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { presentedToken } from '../../shared/http/tokens.js';
import type { Selector } from '../../shared/selector.js';
import type { TokenChanges, TokenRule } from '../auth/guard.js';
import { journalSeen } from '../auth/journal-sight.js';
import type { Scope } from '../auth/roles.js';
import { boardPick } from '../auth/scope-pick.js';
import type { EventHub } from '../domain/events.js';
import type { Machine } from '../domain/machine.js';
import type { Registry } from '../domain/registry.js';
import { Detail, type JournalEntry } from '../schemas.js';
import { recordBytes } from '../view/machine-record.js';
import { LiveClient } from './live-client.js';
import { LiveSelection, selectRequest } from './live-selection.js';
import { selectorOrIssue, unprocessable } from './selector-query.js';

export interface LiveOptions {
  registry: Registry;
  events: EventHub;
  /** Which token opens the board now, and when that changes (feeds of an old one are closed). */
  tokens: Pick<TokenRule, 'opensBoard'>;
  tokenChanges: TokenChanges;
  /** Whether a feed's session or API token still holds (asked every `recheckMs`), or null. */
  credentialCheck(request: FastifyRequest): (() => Promise<boolean>) | null;
  /** How often feeds opened by a session or API token ask whether it still holds. */
  recheckMs?: number;
  /** How often changed machines are sent (they are coalesced in between). */
  flushMs?: number;
  /** A client with more than this many bytes unsent is dropped. */
  maxBufferedBytes?: number;
  pingMs?: number;
}

/**
 * GET /api/live: a WebSocket that sends the board once, then each changed machine (coalesced
 * per flush), each removed machine and each journal entry. Slow or silent clients are dropped.
 * A client may select machines (`?selector=`, or a `select` message): it is then sent only those,
 * and `left` for one whose labels no longer match.
 */
export async function liveRoutes(app: FastifyInstance, options: LiveOptions): Promise<void> {
  const flushMs = options.flushMs ?? 100;
  const maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024;
  const clients = new Map<WebSocket, LiveClient>();
  // The token each feed was opened with: a reload that replaces it closes the feed.
  const openedWith = new WeakMap<WebSocket, string>();
  const stopWatching = options.tokenChanges.subscribe(() => {
    for (const socket of clients.keys()) {
      // A session's or an API token's feed is not the board token's: the recheck asks about it.
      const token = openedWith.get(socket);
      if (token === undefined || options.tokens.opensBoard(token)) continue;
      clients.delete(socket);
      socket.close(1008, 'the board token changed');
    }
  });
  // What each feed's actor sees, and how its session or token is asked whether it still holds.
  const scopes = new WeakMap<WebSocket, Scope>();
  const checks = new Map<WebSocket, () => Promise<boolean>>();
  const rechecker = setInterval(() => {
    for (const [socket, check] of checks) {
      check().then(
        (ok) => {
          if (ok || !clients.has(socket)) return;
          clients.delete(socket);
          checks.delete(socket);
          socket.close(1008, 'signed out');
        },
        () => undefined, // The store is away: the feed stays until it can answer.
      );
    }
  }, options.recheckMs ?? 2000);
  const seen = (name: string) => options.registry.get(name);
  // Changed machines by name, serialised at the flush (once however often they changed).
  const changed = new Map<string, Machine>();

  const journalToAll = (entry: JournalEntry): void => {
    let message: string | undefined;
    for (const [socket, client] of clients) {
      const scope = scopes.get(socket);
      if (scope !== undefined && !journalSeen(scope, entry, seen)) continue;
      message ??= JSON.stringify({ type: 'journal', entry });
      client.send(message);
    }
  };
  // The selector of each handshake's ?selector=, parsed once before the upgrade.
  const selectors = new WeakMap<FastifyRequest, Selector>();
  /** Sends `client` the board of what it selects now (everything: the shared view, in parts). */
  const sendBoard = (client: LiveClient): void => {
    const { selection } = client;
    const view =
      selection === null ? options.registry.view() : options.registry.pickedView(selection.pick);
    client.sendBoard(view.bytes, view.release);
  };
  const select = (client: LiveClient, scope: Scope, selector: Selector | undefined): void => {
    const pick = boardPick(scope, selector ?? null);
    client.selection = pick === null ? null : LiveSelection.of(pick, options.registry.all());
  };

  const unsubscribe = options.events.subscribe({
    machineChanged: (m) => {
      if (clients.size > 0) changed.set(m.name, m);
    },
    machineRemoved: (name) => {
      changed.delete(name);
      const message = JSON.stringify({ type: 'removed', name });
      for (const client of clients.values())
        if (client.selection === null || client.selection.removed(name)) client.send(message);
    },
    journalAppended: journalToAll,
  });
  const flusher = setInterval(() => {
    if (changed.size === 0) return;
    const machines = [...changed.values()];
    changed.clear();
    for (const m of machines) {
      // Serialised once, and only if a client is sent it.
      let message: string | undefined;
      for (const client of clients.values()) {
        const what = client.selection === null ? 'machine' : client.selection.changed(m);
        if (what === 'machine') {
          message ??= `{"type":"machine","machine":${recordBytes(m).toString('utf8')}}`;
          client.send(message);
        } else if (what === 'left') client.send(JSON.stringify({ type: 'left', name: m.name }));
      }
    }
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
    clearInterval(rechecker);
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
    config: { access: 'viewer' },
    // A WebSocket, which FastAPI leaves out of the document too; info.description names it.
    schema: {
      hide: true,
      summary: 'Live updates (WebSocket): the board, then changed machines and journal entries',
      description:
        'Messages: {"type":"board","board":…} once, then {"type":"machine","machine":…}, ' +
        '{"type":"removed","name":…} (forgotten) and {"type":"journal","entry":…}. Token in the header or ?token=. ' +
        'With ?selector= (env=prod,site in (fra,ams)) only the machines it selects are sent, and ' +
        '{"type":"left","name":…} when one stops being selected (its labels changed; it is still on the board); ' +
        'a bad selector refuses the handshake with 422 naming the position. The client may send ' +
        '{"type":"select","selector":…} to change its selection: answered with a fresh board message, ' +
        'or {"type":"error","detail":"selector: … at position N"} (the selection kept). ' +
        'A plain HTTP GET is answered 426.',
      response: { 426: Detail },
    },
    // A bad ?selector= refuses the handshake (422, as GET /api/board?selector=), before the upgrade.
    preValidation: async (request, reply) => {
      const { selector } = request.query as { selector?: unknown };
      if (selector === undefined) return;
      if (typeof selector !== 'string')
        return unprocessable(reply, [
          {
            type: 'string_type',
            loc: ['query', 'selector'],
            msg: 'Input should be a valid string',
            input: selector,
          },
        ]);
      const parsed = selectorOrIssue(selector, ['query', 'selector']);
      if ('issue' in parsed) return unprocessable(reply, [parsed.issue]);
      selectors.set(request, parsed.selector);
    },
    // A plain GET (no upgrade) gets a FastAPI-shaped answer instead of an empty 404.
    handler: async (_request, reply) =>
      reply
        .code(426)
        .header('upgrade', 'websocket')
        .send({ detail: 'Upgrade Required: this is a WebSocket' }),
    wsHandler: (socket, request) => {
      const token = presentedToken(request.headers.authorization, request.query);
      // Only the board token's feeds end with it; an API token's are asked about it (recheck).
      if (token !== null && request.actor.via === 'board_token') openedWith.set(socket, token);
      const client = new LiveClient(socket, maxBuffered, (buffered) => {
        app.log.warn({ buffered }, 'live client too slow; dropped');
        clients.delete(socket);
      });
      clients.set(socket, client);
      const { scope } = request.actor;
      scopes.set(socket, scope);
      const check = options.credentialCheck(request);
      if (check !== null) checks.set(socket, check);
      const gone = () => {
        clients.delete(socket);
        checks.delete(socket);
      };
      alive.add(socket);
      socket.on('pong', () => alive.add(socket));
      socket.on('close', gone);
      socket.on('error', gone);
      // A client says only which machines it selects; anything else it sends is ignored.
      socket.on('message', (data, isBinary) => {
        const request = selectRequest(data, isBinary);
        if (request === null) return;
        if ('error' in request) {
          client.send(JSON.stringify({ type: 'error', detail: request.error }));
          return;
        }
        select(client, scope, request.selector);
        sendBoard(client);
      });
      select(client, scope, selectors.get(request));
      sendBoard(client);
    },
  });
}
