import { afterAll, describe, expect, it } from 'vitest';
import { closedPort, eventually, writeBoardConfig } from './helpers/fleet.js';
import { startBoard } from './helpers/processes.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'history-board-token-0123456789';

async function get(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(url, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: AbortSignal.timeout(10_000),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

/** Points of the last hour (2 s each at 2000 points) in which sweeps of `name` were recorded. */
async function recorded(url: string, name: string): Promise<number> {
  const { body } = await get(`${url}/api/machines/${name}/history?range=1h&points=2000`);
  const up = (body.series as { up: (number | null)[] } | undefined)?.up ?? [];
  return up.filter((v) => v !== null).length;
}

describe('history survives kill -9; a bad file is reported and the live view goes on', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('keeps every committed sweep and state change across kill -9', async () => {
    const configDir = writeBoardConfig(dir, 'b', {
      board_token: TOKEN,
      sweep_interval: 0.2,
      poll_timeout: 1,
      machines: [
        {
          name: 'gone1',
          url: `http://127.0.0.1:${await closedPort()}`,
          key: 'gone1-key-0123456789',
        },
      ],
    });
    const board = await startBoard(configDir);
    const before = await eventually(async () => {
      const n = await recorded(board.url, 'gone1');
      return n >= 4 ? n : undefined;
    }, 'sweeps of several seconds recorded');
    const events = (await get(`${board.url}/api/machines/gone1/events`)).body.events as {
      at: string;
      state: string;
    }[];
    expect(events.at(-1)?.state).toBe('down');
    // A read can see the rows of a sweep whose write is still under way (the write yields
    // between chunks; a known limit, see the issue note): let that write commit first.
    await new Promise((r) => setTimeout(r, 1000));
    await board.kill9();

    const again = await startBoard(configDir);
    try {
      expect(await recorded(again.url, 'gone1')).toBeGreaterThanOrEqual(before);
      const after = (await get(`${again.url}/api/machines/gone1/events?limit=100`)).body.events as {
        at: string;
      }[];
      expect(after.map((e) => e.at)).toEqual(expect.arrayContaining(events.map((e) => e.at)));
      expect(again.output.join('\n')).not.toMatch(/history unavailable/);
    } finally {
      await again.stop();
    }
  });

  it('reports a corrupt history.db clearly at start and still serves the board', async () => {
    const configDir = writeBoardConfig(dir, 'c', { board_token: TOKEN });
    dir.write('c/data/history.db', 'this is not a database, it is a text file '.repeat(200));
    const board = await startBoard(configDir);
    try {
      expect(board.output.join('\n')).toMatch(/history unavailable.*history\.db is corrupt/);
      expect((await get(`${board.url}/api/board`)).status).toBe(200);
      const history = await get(`${board.url}/api/uptime`);
      expect(history.status).toBe(503);
      expect(String(history.body.detail)).toMatch(/corrupt/);
    } finally {
      await board.stop();
    }
  });
});
