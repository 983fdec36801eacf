import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { agentYaml, OPERATOR } from './helpers/agent-fixtures.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'oversized-board-token-3b5d7f9a1c'; // secret-scan: token
const REGISTRATION = 'oversized-registration-4c6e8a0b2d'; // secret-scan: token
const TOO_LARGE = { detail: 'Request body is too large (limit 1 MiB)' };
/** 3 MB: well over the 1 MiB limit, so the client is still sending when the board answers. */
const BODY = JSON.stringify({ name: 'big', location: 'http://big', pad: 'a'.repeat(3_000_000) });
const TRIES = 20;

const run = promisify(execFile);

/** One POST of BODY with Node's fetch: the status and body it read, or the network error. */
async function fetchPost(url: string, token: string, chunked = false): Promise<string> {
  try {
    const body = chunked
      ? new ReadableStream({
          start(controller) {
            const bytes = Buffer.from(BODY);
            for (let at = 0; at < bytes.length; at += 65_536) {
              controller.enqueue(bytes.subarray(at, at + 65_536));
            }
            controller.close();
          },
        })
      : BODY;
    const answer = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
      ...(chunked ? { duplex: 'half' } : {}),
    } as RequestInit);
    return `${answer.status} ${await answer.text()}`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return `network error ${cause?.code ?? String(error)}`;
  }
}

/** The same with curl (which sends `Expect: 100-continue` for a body this size). */
async function curlPost(url: string, token: string, file: string): Promise<string> {
  const { stdout } = await run('curl', [
    '-sS',
    '-o',
    '-',
    '-w',
    ' %{http_code}',
    '-H',
    `authorization: Bearer ${token}`,
    '-H',
    'content-type: application/json',
    '--data-binary',
    `@${file}`,
    url,
  ]).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: `curl failed: ${error.stderr ?? ''} ${error.stdout ?? ''}`,
  }));
  const space = stdout.lastIndexOf(' ');
  return `${stdout.slice(space + 1)} ${stdout.slice(0, space)}`;
}

/** Opens a raw connection, sends headers announcing `length` bytes, then `feed` writes. */
function rawUpload(
  url: string,
  path: string,
  length: number,
  feed: (write: (chunk: Buffer) => boolean) => void,
): Promise<{ answer: string; closedAfterMs: number; sent: number }> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(Number(target.port), target.hostname);
    let answer = '';
    let sent = 0;
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started, sent }));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
    );
    feed((chunk) => {
      if (socket.destroyed) return false;
      sent += chunk.length;
      return socket.write(chunk);
    });
  });
}

/**
 * An over-limit body's 413 reaches the client. Answering from the Content-Length and closing
 * while the client is still sending makes it see EPIPE/ECONNRESET instead of the answer.
 */
describe('an over-limit body: the client reads its 413, and nobody holds the socket', () => {
  const dir = tempDir('panoptes-oversized-');
  let board: RunningProgram;
  let agent: RunningProgram;
  const bodyFile = dir.write('body.json', BODY);

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 60,
      }),
    );
    agent = await startAgent(dir.write('agent.yaml', agentYaml()));
  });
  afterAll(async () => {
    await board?.stop();
    await agent?.stop();
    dir.cleanup();
  });

  const routes = () => [
    { url: `${board.url}/api/report`, token: REGISTRATION },
    { url: `${board.url}/api/machines/lab1/silence`, token: TOKEN },
    { url: `${board.url}/api/notify/test`, token: TOKEN },
    { url: `${agent.url}/api/bell`, token: OPERATOR },
  ];

  it('Node fetch reads its 413 every time, on every route that takes a body', async () => {
    for (const route of routes()) {
      const seen = new Map<string, number>();
      for (let i = 0; i < TRIES; i++) {
        const got = await fetchPost(route.url, route.token, i % 4 === 3);
        seen.set(got, (seen.get(got) ?? 0) + 1);
      }
      expect([...seen], route.url).toEqual([[`413 ${JSON.stringify(TOO_LARGE)}`, TRIES]]);
    }
  }, 120_000);

  it('curl reads its 413 every time too', async () => {
    for (const route of routes()) {
      const seen = new Map<string, number>();
      for (let i = 0; i < TRIES / 2; i++) {
        const got = await curlPost(route.url, route.token, bodyFile);
        seen.set(got, (seen.get(got) ?? 0) + 1);
      }
      expect([...seen], route.url).toEqual([[`413 ${JSON.stringify(TOO_LARGE)}`, TRIES / 2]]);
    }
  }, 120_000);

  it('nobody holds the socket: an endless body is cut by bytes, a stalled one by time', async () => {
    // Announces 1 GiB and sends as fast as it can: cut once 16 MiB of it were thrown away.
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    const flood = await rawUpload(board.url, '/api/report', 1 << 30, (write) => {
      const pump = () => {
        while (write(chunk)) {
          /* until the socket pushes back */
        }
      };
      pump();
      const timer = setInterval(pump, 5);
      setTimeout(() => clearInterval(timer), 20_000).unref();
    });
    expect(flood.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(flood.sent).toBeLessThan(256 * 1024 * 1024);
    // Announces 3 MB, sends 64 KiB, then nothing: cut at the linger time (5 s), well before
    // the request time-out (30 s) would have cut it.
    const stalled = await rawUpload(board.url, '/api/report', 3_000_000, (write) => {
      write(Buffer.alloc(65_536, 0x61));
    });
    expect(stalled.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(stalled.closedAfterMs).toBeLessThan(20_000);
  }, 60_000);

  it('after the rest of the body is read, the connection serves the next request', async () => {
    const target = new URL(board.url);
    const answers = await new Promise<string>((resolve) => {
      const socket = connect(Number(target.port), target.hostname);
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        if ((text.match(/HTTP\/1\.1 /g) ?? []).length === 2 && text.endsWith('}')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('close', () => resolve(text));
      const big = Buffer.alloc(2_000_000, 0x61);
      socket.write(
        `POST /api/report HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${REGISTRATION}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n`,
      );
      socket.write(big);
      socket.write(`GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
    expect(answers).toMatch(/^HTTP\/1\.1 413 /);
    expect(answers).toContain('"status":"ok"');
  }, 30_000);

  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION, OPERATOR], dirs: [dir.path] }));
});
