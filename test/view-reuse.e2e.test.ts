import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'view-reuse-board-token-0123456789';
const REGISTRATION = 'view-reuse-registration-0123456789';
const MACHINES = 2000;
/** A member the board keeps as it is: ~4 KB a machine, a view of ~8 MB, far more than a socket holds. */
const PADDING = 'p'.repeat(4000);

/**
 * The board builds each new view in the memory of an older one once nobody reads that one any
 * more (ViewBuffers). Here a GET /api/board is left half read on a real socket while the view is
 * rebuilt again and again (new reports, other GETs read to the end): the slow reader must still
 * get, byte for byte, the view it asked for.
 */
describe('the board view, read slowly while it is rebuilt', () => {
  const dir = tempDir();
  let board: RunningProgram;

  const reportAll = async (mark: number) => {
    for (let i = 0; i < MACHINES; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, MACHINES - i) }, async (_, k) => {
          const name = `m${String(i + k).padStart(5, '0')}`;
          const response = await fetch(`${board.url}/api/report`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${REGISTRATION}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({
              name,
              location: 'http://127.0.0.1:9',
              hostname: `mark-${mark}`,
              padding: PADDING,
            }),
          });
          expect(response.status).toBe(200);
          await response.arrayBuffer();
        }),
      );
    }
  };
  const getView = async () => {
    const response = await fetch(`${board.url}/api/board`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return { etag: response.headers.get('etag'), bytes: Buffer.from(await response.arrayBuffer()) };
  };

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        max_announced: MACHINES,
      }),
    );
    await reportAll(0);
  }, 60_000);
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it('gives a slow reader the bytes of its view whole, however often the view is rebuilt meanwhile', async () => {
    const expected = await getView();
    expect(expected.bytes.length).toBeGreaterThan(MACHINES * 4000);

    // The slow reader: the same view (same ETag), read a few KB and then not at all for a while.
    const port = Number(new URL(board.url).port);
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      socket.pause();
    });
    const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `GET /api/board HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`,
    );
    while (chunks.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    // Meanwhile: new reports, and views rebuilt and read to the end by other clients.
    const etags = new Set<string | null>([expected.etag]);
    for (let mark = 1; mark <= 4; mark += 1) {
      await reportAll(mark);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const view = await getView();
      expect(view.bytes.toString()).toContain(`"mark-${mark}"`);
      etags.add(view.etag);
    }
    expect(etags.size).toBe(5);

    socket.resume();
    socket.on('data', () => socket.resume());
    await ended;
    const text = Buffer.concat(chunks).toString('latin1');
    const split = text.indexOf('\r\n\r\n');
    expect(text.slice(0, split)).toContain(`etag: ${expected.etag}`);
    const body = Buffer.from(text.slice(split + 4), 'latin1');
    expect(body.length).toBe(expected.bytes.length);
    expect(body.equals(expected.bytes)).toBe(true);
  }, 120_000);
});
