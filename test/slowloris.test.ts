import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { isErrorShape } from './helpers/fuzz-checks.js';
import { parseRawAnswers } from './helpers/fuzz-raw.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'loris-board-token-5f7b9d1f3a5c';
const REGISTRATION = 'loris-registration-6a8c0e2a4b6d';
const AGENT_TOKEN = 'loris-agent-token-7b9d1f3b5c7e';
const SECRETS = [TOKEN, REGISTRATION, AGENT_TOKEN];

/** The time-outs createHttpApp gives both programs (seconds). */
const HEADERS_TIMEOUT = 10;
const REQUEST_TIMEOUT = 30;
/** Node checks the deadlines once a second; the rest is slack for a loaded machine. */
const SLACK = 5;

/** A client that opens a connection and feeds it as told; records when and how it ended. */
function slowClient(
  port: number,
  feed: (socket: Socket) => void,
): Promise<{ seconds: number; text: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => feed(socket));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () =>
      resolve({ seconds: (Date.now() - started) / 1000, text: Buffer.concat(chunks).toString() }),
    );
    // Whatever happens, the test itself gives up well after the longest time-out.
    setTimeout(() => socket.destroy(), (REQUEST_TIMEOUT + 3 * SLACK) * 1000).unref();
  });
}

/** Writes `text` one byte a second, forever if need be (until the socket closes). */
function trickle(socket: Socket, text: string): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) {
      clearInterval(timer);
      return;
    }
    socket.write(text[i % text.length] ?? ' ');
    i += 1;
  }, 1000);
  socket.on('close', () => clearInterval(timer));
}

describe('slowloris: both programs cut slow clients by time-outs', () => {
  const dir = tempDir('panoptes-loris-');
  const http = new Recorder();
  let board: RunningProgram;
  let agent: RunningProgram;

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', { board_token: TOKEN, registration_token: REGISTRATION }),
    );
    agent = await startAgent(
      writeAgentConfig(dir, 'a', {
        name: 'loris',
        token: AGENT_TOKEN,
        data_dir: `${dir.path}/agent-data`,
      }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    await agent?.stop();
    dir.cleanup();
  });

  it(
    'an idle connection and headers sent a byte a second are cut at the headers time-out; a body a byte a second at the request time-out',
    async () => {
      const probes: Promise<{ name: string; seconds: number; text: string; limit: number }>[] = [];
      for (const [program, target, path, token] of [
        ['board', board, '/api/report', REGISTRATION],
        ['agent', agent, '/api/bell', AGENT_TOKEN],
      ] as const) {
        const port = Number(new URL(target.url).port);
        const probe = (name: string, limit: number, feed: (s: Socket) => void) =>
          probes.push(
            slowClient(port, feed).then((r) => ({ name: `${program}: ${name}`, limit, ...r })),
          );
        probe('idle connection', HEADERS_TIMEOUT, () => undefined);
        probe('headers a byte a second', HEADERS_TIMEOUT, (s) =>
          trickle(s, `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ${'s'.repeat(200)}`),
        );
        probe('body a byte a second', REQUEST_TIMEOUT, (s) => {
          s.write(
            `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
              'Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n',
          );
          trickle(s, ' ');
        });
      }
      // Meanwhile both programs serve everyone else as usual.
      for (const target of [board, agent]) {
        expect((await http.call(`${target.url}/api/health`)).status).toBe(200);
      }
      const results = await Promise.all(probes);
      for (const r of results) {
        expect(r.seconds, `${r.name} cut within its time-out (${r.limit} s)`).toBeLessThan(
          r.limit + SLACK,
        );
        // Answered 408 FastAPI-shaped when nothing else was under way on the connection.
        const [answer] = parseRawAnswers(r.text);
        if (answer !== undefined) {
          expect(answer.status, r.name).toBe(408);
          expect(isErrorShape(answer.text), r.name).toBe(true);
        }
      }
      console.log(
        `slowloris: ${results.map((r) => `${r.name} cut after ${r.seconds.toFixed(1)} s`).join('; ')}`,
      );
    },
    (REQUEST_TIMEOUT + 4 * SLACK) * 1000,
  );

  it('leaves no secret anywhere', () => {
    expectNoSecrets({ secrets: SECRETS, recorders: [http], dirs: [dir.path] });
  });
});
