import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'poller-heap-board-token-0123456789';
/** Past the 10,240 machines the pollers' least heap (128 MiB) is sized for. */
const GROWN = 10_400;

/** `count` machines where nothing listens (port 9 on the loopback: refused), with a key each. */
function machines(count: number): { name: string; url: string }[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `m${String(i).padStart(5, '0')}`,
    url: 'http://127.0.0.1:9',
    key: 'poller-heap-machine-key-0123456789',
  }));
}

/** A reload that grows the fleet past the pollers' heap ceiling starts pollers with more. */
describe('board reload: a fleet grown past the pollers heap', () => {
  const dir = tempDir('panoptes-poller-heap-');
  let board: RunningProgram;
  const base = { board_token: TOKEN, sweep_interval: 60, poll_timeout: 2 };

  beforeAll(async () => {
    board = await startBoard(writeBoardConfig(dir, 'board', { ...base, machines: machines(2) }));
  });

  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  const grownLine = () => board.output.find((line) => line.includes('new pollers with room'));

  it('a reload within the room keeps the pollers; one past it starts pollers sized for the fleet', async () => {
    const reloads = () => board.output.filter((l) => l.includes('config reloaded')).length;
    const reloaded = (atLeast: number) =>
      eventually(
        async () => (reloads() >= atLeast ? true : undefined),
        'a reload in the log',
        30_000,
      );
    writeBoardConfig(dir, 'board', { ...base, machines: machines(1000) });
    process.kill(board.pid, 'SIGHUP');
    await reloaded(1);
    expect(grownLine()).toBeUndefined();

    writeBoardConfig(dir, 'board', { ...base, machines: machines(GROWN) });
    process.kill(board.pid, 'SIGHUP');
    const line = await eventually(async () => grownLine(), 'the new pollers in the log', 20_000);
    const logged = JSON.parse(line) as { machines: number; heapMb: number; wasMb: number };
    expect(logged).toMatchObject({ machines: GROWN, heapMb: 130, wasMb: 128 });
    const answer = await fetch(`${board.url}/api/board`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(((await answer.json()) as { machines: unknown[] }).machines).toHaveLength(GROWN);
  });
});
