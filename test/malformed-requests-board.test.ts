import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { Recorder, writeBoardConfig } from './helpers/fleet.js';
import { nested } from './helpers/fuzz-arbitraries.js';
import { isErrorShape } from './helpers/fuzz-checks.js';
import { parseRawAnswers, rawExchange } from './helpers/fuzz-raw.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'malformed-board-token-3e5a7c9b1d2f';
const REGISTRATION = 'malformed-registration-4f6b8d0a2c4e';
const SECRETS = [TOKEN, REGISTRATION];

/**
 * Malformed and odd requests to the board, one test per kind the fuzz and fault files found by
 * chance: a 4xx in FastAPI's shape, never a 500, a half-made machine or an error in the log.
 */
describe('malformed requests to the board: a FastAPI-shaped 4xx, never a 500', () => {
  const dir = tempDir('panoptes-malformed-');
  const http = new Recorder();
  const received: string[] = [];
  let board: RunningProgram;
  let port: number;
  const report = (body: string) =>
    http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body,
    });

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', { board_token: TOKEN, registration_token: REGISTRATION }),
    );
    port = Number(new URL(board.url).port);
  });
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it('a report nested 6,000 levels deep is a 422, not a 500 that leaves a half-made machine', async () => {
    // JSON.parse takes any depth, JSON.stringify of such a machine overflows the stack: a 500
    // would leave the machine on the board, never journaled, with no overview.
    const deep = `{"name":"deep1","location":"http://deep.example","x":${nested(6000, 'array')}}`;
    const r = await report(deep);
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      detail: [
        {
          type: 'json_invalid',
          loc: ['body', 52 + 200],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: 'recursion limit exceeded' },
        },
      ],
    });
    const view = (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as {
      machines: { name: string }[];
    };
    expect(view.machines.map((m) => m.name)).not.toContain('deep1');
    // Depth within the limit is still taken, and served back.
    const ok = await report(
      `{"name":"deep2","location":"http://deep.example","x":${nested(90, 'mixed')}}`,
    );
    expect(ok.status).toBe(200);
    expect((await http.call(`${board.url}/api/board`, { token: TOKEN })).status).toBe(200);
  });

  it('a deeply nested body on any JSON route is refused the same way (the 422 echoes no deep input)', async () => {
    const r = await http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: nested(20_000, 'array'),
    });
    expect(r.status).toBe(422);
    expect(isErrorShape(r.text)).toBe(true);
  });

  it('a path that is not valid percent-encoding is decoded as uvicorn does, never Fastify’s own body', async () => {
    // FastAPI decodes with replacement and validates: `%zz` stays as it is, invalid UTF-8
    // becomes U+FFFD.
    const cases: [string, string, number, string][] = [
      ['GET', '/api/language/%zz', 422, '%zz'],
      ['DELETE', '/api/machines/%C0%AE%C0%AE', 422, '\ufffd'.repeat(4)],
      ['DELETE', `/api/machines/${'a'.repeat(600)}`, 422, 'a'.repeat(600)],
    ];
    for (const [method, path, status, input] of cases) {
      const r = await http.call(`${board.url}${path}`, { method, token: TOKEN });
      expect(r.status).toBe(status);
      expect((r.json as { detail: { input: unknown }[] }).detail[0]?.input).toBe(input);
    }
    const root = await http.call(`${board.url}/%FF%FE`, { token: TOKEN });
    expect(root.status).toBe(404);
    expect(isErrorShape(root.text)).toBe(true);
  });

  it('what Node’s parser refuses (bad request line, headers over 16 KiB) is answered FastAPI-shaped', async () => {
    const cases: [string, number][] = [
      ['GET /api/\u0000 HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      // A method Node does not know is routed as FastAPI (h11) does: 405.
      ['FOO /api/board HTTP/1.1\r\nHost: x\r\n\r\n', 405],
      [`GET /api/board HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20 * 1024)}\r\n\r\n`, 431],
      [
        'POST /api/report HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n',
        400,
      ],
    ];
    for (const [data, status] of cases) {
      const { text } = await rawExchange(port, data);
      received.push(text);
      const [answer] = parseRawAnswers(text);
      expect(answer?.status).toBe(status);
      expect(answer?.headers['content-type']).toBe('application/json');
      expect(isErrorShape(answer?.text ?? '')).toBe(true);
    }
  });

  it('?token&token=<board token> opens the board: an empty token= is not a wrong token', async () => {
    const r = await http.call(`${board.url}/api/board?token&token=${TOKEN}`);
    expect(r.status).toBe(200);
    const last = await http.call(`${board.url}/api/board?token=nope&token=${TOKEN}`);
    expect(last.status).toBe(200);
  });

  it('a live client sending a frame over 64 KiB is dropped without an error in the board log', async () => {
    const socket = new WebSocket(`${board.url.replace('http', 'ws')}/api/live?token=${TOKEN}`);
    socket.on('message', (m) => received.push(String(m)));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send('x'.repeat(70 * 1024));
    expect(await closed).toBe(1009);
    // Give the board a moment to have logged whatever it logs about it.
    await new Promise((r) => setTimeout(r, 200));
    expect(board.output.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
    expect((await http.call(`${board.url}/api/health`)).status).toBe(200);
  });

  it('a WebSocket handshake ws would refuse is a FastAPI-shaped 400/405, not ws’s plain text', async () => {
    const handshake = (method: string, key: string, version = '13') =>
      `${method} /api/live?token=${TOKEN} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n` +
      `Upgrade: websocket\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: ${version}\r\n\r\n`;
    for (const [data, status] of [
      [handshake('GET', 'x'), 400],
      [handshake('GET', 'dGhlIHNhbXBsZSBub25jZQ==', '12'), 400],
      [handshake('POST', 'dGhlIHNhbXBsZSBub25jZQ=='), 405],
    ] as const) {
      const { text } = await rawExchange(port, data);
      received.push(text);
      const [answer] = parseRawAnswers(text);
      expect(answer?.status).toBe(status);
      expect(isErrorShape(answer?.text ?? '')).toBe(true);
    }
    // A good one still switches protocols.
    const { text } = await rawExchange(port, handshake('GET', 'dGhlIHNhbXBsZSBub25jZQ=='), 500);
    expect(text.startsWith('HTTP/1.1 101')).toBe(true);
  });

  it('leaves no secret anywhere', () => {
    expectNoSecrets({ secrets: SECRETS, recorders: [http], texts: received, dirs: [dir.path] });
  });
});
