import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCa } from '../../../test/helpers/certs.js';
import { tempDir } from '../../../test/helpers/tmp.js';
import { boardConnection } from './report-poster.js';

describe('boardConnection', () => {
  const dir = tempDir('panoptes-poster-');
  let server: Server;
  let url: string;
  let caPem: string;
  let handshakes = 0;
  const bodies: string[] = [];

  beforeAll(async () => {
    const ca = makeTestCa(dir);
    const pair = ca.issue('board');
    caPem = readFileSync(ca.caFile, 'utf8');
    server = createServer(
      { cert: readFileSync(pair.cert), key: readFileSync(pair.key) },
      (request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        request.on('end', () => {
          bodies.push(body);
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{"ok":true,"actions":[]}');
        });
      },
    );
    // As the board does by default (board.yaml keep_alive: 75).
    server.keepAliveTimeout = 75_000;
    server.on('secureConnection', () => {
      handshakes += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    dir.cleanup();
  });

  it('keeps its TLS connection from one report to the next: one handshake for three reports', async () => {
    const connection = boardConnection(url, 'registration-token-0123', 5000, caPem, 10_000);
    try {
      for (const n of [1, 2, 3]) {
        const answer = await connection.post(`{"n":${n}}`);
        expect(answer).toEqual({ status: 200, body: { ok: true, actions: [] } });
        // Reports come an interval apart; posted in the same turn as the last answer ended,
        // the connection may not be free yet.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await connection.close();
    }
    expect(bodies).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    expect(handshakes).toBe(1);
  });
});
