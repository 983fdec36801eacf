import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOverTls } from '../bench/fleet/tls-reporters.js';
import { makeTestCa } from './helpers/certs.js';
import { tempDir } from './helpers/tmp.js';

/**
 * The bench's TLS reporters against a node:https server that counts handshakes:
 * what they count is what the server saw, so the bench's handshake row measures the server.
 */
describe('the TLS reporters of the bench', () => {
  const dir = tempDir('panoptes-tls-bench-');
  let server: Server;
  let url: string;
  let ca: string;
  let handshakes = 0;
  let reports = 0;
  /** Close each connection after its answer (as a board whose idle time-out is shorter than the interval). */
  let closing = false;
  /** Refuse every report until this time (ms since epoch): agents that have not joined. */
  let refuseUntil = 0;

  beforeAll(async () => {
    const made = makeTestCa(dir);
    const pair = made.issue('board');
    ca = readFileSync(made.caFile, 'utf8');
    server = createServer(
      { cert: readFileSync(pair.cert), key: readFileSync(pair.key) },
      (request, response) => {
        request.resume();
        request.on('end', () => {
          reports += 1;
          if (Date.now() < refuseUntil) {
            response.writeHead(503, { 'content-length': 2 });
            response.end('{}');
            return;
          }
          const body = '{"ok":true,"actions":[]}';
          // With a Content-Length, as the board and the bare server answer.
          response.writeHead(200, {
            'content-type': 'application/json',
            'content-length': body.length,
            ...(closing ? { connection: 'close' } : {}),
          });
          response.end(body);
        });
      },
    );
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

  const run = (settleIntervals?: number) =>
    reportOverTls({
      type: 'tls-report',
      board: url,
      token: 'registration-token-0123',
      ca,
      machines: 20,
      intervalMs: 200,
      rampMs: 100,
      measureMs: 600,
      ...(settleIntervals === undefined ? {} : { settleIntervals }),
    });

  it('keeps one connection per agent when the server keeps them: no handshake in the window', async () => {
    closing = false;
    handshakes = 0;
    reports = 0;
    const answer = await run();
    expect(answer.handshakesAll).toBe(20);
    expect(handshakes).toBe(20);
    expect(answer.handshakes).toBe(0);
    expect(answer.sent).toBeGreaterThanOrEqual(50);
    expect(answer.ok).toBe(answer.sent);
    expect(reports).toBeGreaterThanOrEqual(answer.sent);
    expect(answer.joined).toBe(20);
    // Two intervals after the ramp as planned, or after the last join if that came later.
    expect(answer.plannedStartMs).toBe(500);
    expect(answer.windowStartMs).toBeCloseTo(Math.max(500, answer.joinedMs + 400), 5);
  });

  it('starts the window two intervals after the last agent joined, when joins run late', async () => {
    closing = false;
    // No report is accepted for the first 700 ms: no agent has joined before then.
    refuseUntil = Date.now() + 700;
    const answer = await run();
    refuseUntil = 0;
    expect(answer.joined).toBe(20);
    expect(answer.joinedMs).toBeGreaterThanOrEqual(650);
    expect(answer.windowStartMs).toBeCloseTo(answer.joinedMs + 400, 5);
    // Nothing refused is in the window.
    expect(answer.statuses).toEqual({ '200': answer.sent });
    expect(answer.ok).toBe(answer.sent);
  });

  it('starts the window as many intervals after the last join as asked', async () => {
    closing = false;
    refuseUntil = Date.now() + 700;
    const answer = await run(1);
    refuseUntil = 0;
    expect(answer.plannedStartMs).toBe(300);
    expect(answer.joinedMs).toBeGreaterThanOrEqual(650);
    expect(answer.windowStartMs).toBeCloseTo(answer.joinedMs + 200, 5);
    expect(answer.statuses).toEqual({ '200': answer.sent });
  });

  it('counts a handshake per report when the server closes each connection', async () => {
    closing = true;
    handshakes = 0;
    const answer = await run();
    expect(answer.handshakes).toBeGreaterThanOrEqual(answer.sent * 0.9);
    expect(answer.handshakesAll).toBe(handshakes);
    expect(answer.ok).toBe(answer.sent);
  });
});
