import { afterAll, describe, expect, it } from 'vitest';
import { startBoard } from '../harness/processes.js';
import { CHUNK_ROWS } from '../src/board/store/sqlite/history-store.js';
import { closedPort, eventually, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'history-board-token-0123456789';

async function get(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(url, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: AbortSignal.timeout(10_000),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

/**
 * The seconds (from..from+1000, one point each) in which a sweep of `name` was recorded, as a
 * read sees them. A fixed window: the same points before and after a restart.
 */
async function recorded(url: string, name: string, from: number): Promise<number[]> {
  const { body } = await get(
    `${url}/api/machines/${name}/history?from=${from}&to=${from + 1000}&points=1000`,
  );
  const series = body.series as { t: number[]; up: (number | null)[] } | undefined;
  return (series?.t ?? []).filter((_, i) => (series?.up[i] ?? null) !== null);
}

/** More machines than the store writes between two yields: each sweep's write is in chunks. */
const MACHINES = CHUNK_ROWS + 50;

describe('history survives kill -9; a bad file is reported and the live view goes on', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('keeps everything a read saw across kill -9, even with a sweep half written', async () => {
    const port = await closedPort();
    const configDir = writeBoardConfig(dir, 'b', {
      board_token: TOKEN,
      sweep_interval: 0.5,
      poll_timeout: 1,
      machines: Array.from({ length: MACHINES }, (_, i) => ({
        name: `gone${String(i).padStart(3, '0')}`,
        url: `http://127.0.0.1:${port}`,
        key: `gone-key-0123456789-${i}`,
      })),
    });
    const from = Math.floor(Date.now() / 1000) - 10;
    const board = await startBoard(configDir);
    // The first machine's rows are written first in each sweep: a read between two chunks of
    // a sweep would see that sweep for it before the sweep is committed.
    const first = 'gone000';
    await eventually(async () => {
      const seen = await recorded(board.url, first, from);
      return seen.length >= 4 ? seen : undefined;
    }, 'sweeps of several seconds recorded');
    const events = (await get(`${board.url}/api/machines/${first}/events`)).body.events as {
      at: string;
      state: string;
    }[];
    const before = await recorded(board.url, first, from);
    // Killed right after the read, whatever the board is writing at that moment.
    await board.kill9();
    expect(events.at(-1)?.state).toBe('down');

    const again = await startBoard(configDir);
    try {
      const after = await recorded(again.url, first, from);
      expect(after).toEqual(expect.arrayContaining(before));
      const changes = (await get(`${again.url}/api/machines/${first}/events?limit=100`)).body
        .events as { at: string }[];
      expect(changes.map((e) => e.at)).toEqual(expect.arrayContaining(events.map((e) => e.at)));
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
