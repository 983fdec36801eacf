import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { guardSockets } from '../src/shared/http/socket-guard.js';
import { makeTestCa } from './helpers/certs.js';
import { tempDir } from './helpers/tmp.js';

const GRACE_MS = 300;

/**
 * guardSockets cuts whatever clients hold once the grace after a close is over: node:http's
 * own connections (idle keep-alives, a body that never ends) through closeAllConnections, and
 * what it does not count (on TLS, a connection whose handshake never began).
 */
describe('socket guard: a close ends every connection after the grace', () => {
  const dir = tempDir('panoptes-guard-');
  const ca = makeTestCa(dir);
  const pair = ca.issue('server');
  afterAll(() => dir.cleanup());

  async function serve(tls: boolean): Promise<{ app: FastifyInstance; port: number }> {
    const options = { forceCloseConnections: 'idle' as const, logger: false };
    const app = tls
      ? (Fastify({
          ...options,
          https: { cert: readFileSync(pair.cert), key: readFileSync(pair.key) },
        }) as unknown as FastifyInstance)
      : Fastify(options);
    guardSockets(app, GRACE_MS);
    app.get('/', async () => ({ ok: true }));
    app.post('/', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    return { app, port: address.port };
  }

  /** A client socket that resolves `closed` when the server ends it. */
  function held(socket: Socket): { socket: Socket; closed: Promise<void>; data: () => string } {
    let data = '';
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    return { socket, closed, data: () => data };
  }

  const opened = (socket: Socket, event: string) =>
    new Promise<void>((resolve, reject) => {
      socket.once(event, () => resolve());
      socket.once('error', reject);
    });

  async function clients(port: number, tls: boolean) {
    const open = async () => {
      if (!tls) {
        const socket = connect(port, '127.0.0.1');
        await opened(socket, 'connect');
        return socket;
      }
      const socket = tlsConnect({ port, host: '127.0.0.1', ca: readFileSync(ca.caFile) });
      await opened(socket, 'secureConnect');
      return socket;
    };
    const idle = held(await open());
    idle.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const slow = held(await open());
    slow.socket.write(
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a',
    );
    const all = [idle, slow];
    if (tls) {
      // TCP only: node:http never sees it, its TLS handshake not begun.
      const silent = connect(port, '127.0.0.1');
      await opened(silent, 'connect');
      all.push(held(silent));
    }
    await expect.poll(() => idle.data()).toMatch(/^HTTP\/1\.1 200 /);
    return all;
  }

  for (const tls of [false, true]) {
    it(`${tls ? 'HTTPS' : 'HTTP'}: an idle keep-alive, a body that never ends${tls ? ', a handshake never begun' : ''}`, async () => {
      const { app, port } = await serve(tls);
      const held = await clients(port, tls);
      const started = Date.now();
      await app.close();
      await Promise.all(held.map((h) => h.closed));
      const tookMs = Date.now() - started;
      // Cut once the grace is over, not after Node's own time-outs (10 s and more).
      expect(tookMs).toBeLessThan(GRACE_MS + 3000);
      for (const h of held) expect(h.socket.destroyed).toBe(true);
    });
  }
});
