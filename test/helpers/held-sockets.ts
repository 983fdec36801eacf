import { connect, type Socket } from 'node:net';

/** A raw connection, with what it received and whether the server closed it. */
export interface Held {
  socket: Socket;
  received(): string;
  closed: Promise<void>;
}

/** Opens a raw connection, writes `data`, and keeps it (never ends it from this side). */
export async function hold(port: number, data: string): Promise<Held> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (c: Buffer) => {
    text += c.toString('latin1');
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(data);
  return { socket, received: () => text, closed };
}

/** A request for `path` asking to switch to h2c (with a token when given). */
export const h2c = (path: string, token = '') =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\n${token === '' ? '' : `Authorization: Bearer ${token}\r\n`}` +
  'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n';
/** A valid WebSocket handshake for `path`. */
export const wsHandshake = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';
