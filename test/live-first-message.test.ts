import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { type Held, hold, wsHandshake } from './helpers/held-sockets.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'live-board-token-7c1e9a3b5d'; // secret-scan: token
const REGISTRATION = 'live-registration-2b4d6f8a0c'; // secret-scan: token

// No token or key of these tests in any answer, message or line the programs wrote.
scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION] }));

describe('the live feed’s first message at a large board is sent in parts', () => {
  const dir = tempDir('panoptes-live-first-');
  const http = new Recorder();
  let board: RunningProgram;
  const MACHINES = 260;
  const PADDING = 60_000;

  /** The board process's resident memory, in bytes (Linux). */
  const rss = (): number => {
    const status = readFileSync(`/proc/${board.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
  };

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', { board_token: TOKEN, registration_token: REGISTRATION }),
    );
    for (let i = 0; i < MACHINES; i += 1) {
      const r = await http.call(`${board.url}/api/report`, {
        method: 'POST',
        token: REGISTRATION,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `big${i}`,
          location: `http://big${i}.example:8701`,
          padding: 'x'.repeat(PADDING),
        }),
      });
      expect(r.status).toBe(200);
    }
  });
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it('a reader gets the whole board as one message; 16 clients that never read do not each hold a copy', async () => {
    const live = `${board.url.replace('http', 'ws')}/api/live?token=${TOKEN}`;
    const reader = new WebSocket(live, { maxPayload: 64 * 1024 * 1024 });
    const messages: string[] = [];
    reader.on('message', (m) => messages.push(String(m)));
    const first = await eventually(async () => messages[0], 'the board message', 30_000);
    const parsed = JSON.parse(first) as { type: string; board: { machines: { name: string }[] } };
    expect(parsed.type).toBe('board');
    expect(parsed.board.machines).toHaveLength(MACHINES);
    expect(first.length).toBeGreaterThan(MACHINES * PADDING);

    if (!existsSync(`/proc/${board.pid}/status`)) return;
    const before = rss();
    const port = Number(new URL(board.url).port);
    const stalled: Held[] = [];
    for (let i = 0; i < 16; i += 1) {
      const h = await hold(port, wsHandshake(`/api/live?token=${TOKEN}`));
      await eventually(
        async () => (h.received().startsWith('HTTP/1.1 101') ? true : undefined),
        'the switch',
      );
      h.socket.pause();
      stalled.push(h);
    }
    // Messages for everyone while they stall: a forget is broadcast to every client.
    await http.call(`${board.url}/api/machines/big0`, { method: 'DELETE', token: TOKEN });
    const grown = rss() - before;
    // Each copy of the board is ~16 MB: 16 clients holding one each is ~250 MB.
    expect(grown).toBeLessThan(96 * 1024 * 1024);
    // The reader still gets what follows the board.
    await eventually(
      async () => (messages.some((m) => m.includes('"type":"removed"')) ? true : undefined),
      'the removal',
    );
    for (const h of stalled) h.socket.destroy();
    reader.close();
  });
});
