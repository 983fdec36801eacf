import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/** How long a closing server waits for in-flight requests and live sockets before cutting them. */
export const SHUTDOWN_GRACE_MS = 5000;

const CONNECT_REFUSED = JSON.stringify({ detail: 'Method Not Allowed' });

/**
 * Keeps every socket of the server within the life of its answers and of the server itself:
 *
 * - A request with `Upgrade:` is handed by Node to the 'upgrade' listeners (the WebSocket
 *   plugin) and leaves Node's HTTP bookkeeping: answered as an ordinary request (any route but
 *   a WebSocket one, or a refusal), its socket stayed open for ever, and `server.close()` waited
 *   for it. Such a socket is now closed once its answer is sent.
 * - CONNECT is answered 405 and closed (Node would otherwise drop it without a word).
 * - Closing the server cuts whatever is still open after `graceMs` (idle, upgraded, live or
 *   slow sockets), so a shutdown ends whatever clients hold.
 */
export function guardSockets(app: FastifyInstance, graceMs = SHUTDOWN_GRACE_MS): void {
  const sockets = new Set<Duplex>();
  app.server.on('connection', (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => undefined);
    socket.end(
      `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(CONNECT_REFUSED)}\r\nConnection: close\r\n\r\n${CONNECT_REFUSED}`,
    );
    socket.once('finish', () => socket.destroy());
  });

  app.addHook('onRequest', async (request, reply) => {
    // `upgrade` is true only when Node handed the socket to an 'upgrade' listener. A WebSocket
    // that is switched hijacks the reply, which then never finishes: only ordinary answers close.
    if ((request.raw as IncomingMessage & { upgrade?: boolean }).upgrade !== true) return;
    reply.header('connection', 'close');
    const socket = request.raw.socket;
    reply.raw.once('finish', () => socket.destroySoon());
  });

  let deadline: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    deadline = setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, graceMs);
    deadline.unref();
  });
  app.addHook('onClose', async () => {
    clearTimeout(deadline);
    for (const socket of sockets) socket.destroy();
  });
}
