import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/shared/http/http-app.js';
import { createLogger } from '../src/shared/logger.js';
import { parseRawAnswers } from './helpers/fuzz-raw.js';

/**
 * A request that reaches a server while it closes (on a connection busy with one in flight) is
 * answered 503 with the `{"detail"}` body of every other error, not Fastify's own shape.
 * (A request pipelined before the close is already under way when it begins: it is answered.)
 */
describe('a request during shutdown', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('gets 503 {"detail": …} and the connection is closed', async () => {
    const app = await createHttpApp({
      logger: createLogger('board', 'silent'),
      openapi: {
        title: 'test',
        version: '0',
        description: '',
        bearerDescription: '',
        queryDescription: '',
      },
    });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      entered = resolve;
    });
    app.get('/slow', async () => {
      entered();
      await held;
      return { ok: true };
    });
    app.get('/fast', async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    closers.push(() => app.close());

    const socket = connect(address.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await inFlight;
    const closed = app.close();
    // The close has begun; a second request comes on the connection that is still busy.
    await new Promise((r) => setTimeout(r, 100));
    socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    release();
    await ended;
    await closed;

    const answers = parseRawAnswers(Buffer.concat(chunks).toString('latin1'));
    expect(answers.map((a) => a.status)).toEqual([200, 503]);
    const refused = answers[1];
    expect(refused?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(refused?.text ?? '')).toEqual({
      detail: 'Service Unavailable: the server is shutting down',
    });
  });
});
