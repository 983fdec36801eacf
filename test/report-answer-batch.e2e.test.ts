import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'answer-batch-board-token-0123456789';
const REGISTRATION = 'answer-batch-registration-0123456789';

/** One POST /api/report as it goes on the wire, keep-alive. */
function reportRequest(host: string, body: string): string {
  return (
    `POST /api/report HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
    `authorization: Bearer ${REGISTRATION}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** The statuses of the first `count` answers read off `socket`, in the order they came. */
function statuses(socket: Socket, count: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const found = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
      if (found.length >= count) resolve(found);
    });
    socket.on('error', reject);
  });
}

/**
 * Answers to reports are written together at the end of each turn of the board's event loop
 * (src/board/http/answer-batch.ts): each must still reach its own connection, in the order of
 * that connection's requests.
 */
describe('reports answered together: each answer on its own connection, in order', () => {
  const dir = tempDir('panoptes-answer-batch-');
  let board: RunningProgram;

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 60,
      }),
    );
  });

  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it('reports sent at once on 40 connections, every other one bad, and two pipelined on one', async () => {
    const { host, hostname, port } = new URL(board.url);
    const good = (i: number) =>
      JSON.stringify({ name: `batch${i}`, location: `http://127.0.0.1:9/${i}` });
    const bad = (i: number) => JSON.stringify({ name: `batch${i}`, location: 7 });
    const sockets = await Promise.all(
      Array.from(
        { length: 40 },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const s = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
            s.once('connect', () => resolve(s));
            s.once('error', reject);
          }),
      ),
    );
    try {
      const answers = sockets.map((s, i) => statuses(s, i === 0 ? 3 : 1));
      // All written in one go, so that the board takes many of them in one turn.
      sockets.forEach((s, i) => {
        const body = i % 2 === 0 ? good(i) : bad(i);
        const requests =
          i === 0
            ? reportRequest(host, body) +
              reportRequest(host, bad(1000)) +
              reportRequest(host, good(1001))
            : reportRequest(host, body);
        s.write(requests);
      });
      const got = await Promise.all(answers);
      expect(got[0]).toEqual([200, 422, 200]);
      for (let i = 1; i < sockets.length; i++)
        expect(got[i], `connection ${i}`).toEqual([i % 2 === 0 ? 200 : 422]);
    } finally {
      for (const s of sockets) s.destroy();
    }
    const view = await fetch(`${board.url}/api/board`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const names = ((await view.json()) as { machines: { name: string }[] }).machines.map(
      (m) => m.name,
    );
    expect(names).toHaveLength(21);
  });
});
