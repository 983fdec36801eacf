import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startProgram, startShell } from '../harness/processes.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'start-address-board-token-3f9a1c7e'; // secret-scan: token

/**
 * `npm start -- --config DIR` (and `panoptes-board --config DIR`) print the page's address on
 * stdout once listening: a plain link to open, with `?token=` only when stdout is a terminal.
 */
describe('the address a board with --config prints', () => {
  const dir = tempDir('panoptes-start-address-');
  const config = writeBoardConfig(dir, 'board', { board_token: TOKEN, machines: [] });
  afterAll(() => dir.cleanup());

  for (const program of ['start', 'board'] as const) {
    it(`${program}: into a pipe, the address without the token, and where the token is`, async () => {
      const board = await startProgram(program, ['--config', config]);
      try {
        const port = new URL(board.url).port;
        const address = `http://127.0.0.1:${port}/`;
        await expect
          .poll(() => board.output.filter((l) => l.includes(`${address} `)))
          .toEqual([
            `Panoptes board: ${address} (sign in with the board token: board_token in ${config}/board.yaml)`,
          ]);
        expect(board.output.filter((l) => l.includes(TOKEN))).toEqual([]);
        expect(board.output.filter((l) => l.includes('token='))).toEqual([]);
      } finally {
        const exit = await board.stop();
        expect(exit, board.output.slice(-6).join('\n')).toEqual({ code: 0, signal: null });
      }
    });
  }

  it('stops cleanly on a SIGTERM sent the moment the address is out (5 times)', async () => {
    for (let i = 0; i < 5; i += 1) {
      const child = spawn(
        process.execPath,
        [`${ROOT}dist/board/main.js`, '--config', config, '--port', '0', '--host', '127.0.0.1'],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      let sent = false;
      child.stdout.on('data', (chunk: Buffer) => {
        if (sent || !chunk.toString('utf8').includes('Panoptes board:')) return;
        sent = true;
        child.kill('SIGTERM');
      });
      const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
      expect({ run: i, code, signal }).toEqual({ run: i, code: 0, signal: null });
    }
  }, 60_000);

  it('into a pipe, a token from PANOPTES_BOARD_TOKEN is named as that variable', async () => {
    const fromEnv = `${TOKEN}-env`;
    const board = await startProgram('start', ['--config', config], {
      env: { PANOPTES_BOARD_TOKEN: fromEnv },
    });
    try {
      await expect
        .poll(() => board.output.find((l) => l.startsWith('Panoptes board: ')))
        .toMatch(/\/ \(sign in with the board token: PANOPTES_BOARD_TOKEN\)$/);
      expect(board.output.filter((l) => l.includes(fromEnv))).toEqual([]);
    } finally {
      await board.stop();
    }
  });

  it('on a terminal (script(1) gives it one), a link that signs in', async () => {
    const command = `${process.execPath} dist/start/main.js --config ${config} --host 127.0.0.1 --port 0`;
    const board = await startShell(`exec script -qec '${command}' /dev/null`, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir.path },
    });
    try {
      const port = new URL(board.url).port;
      await expect
        .poll(() => board.output.map((l) => l.trimEnd()).filter((l) => l.includes('token=')))
        .toEqual([`Panoptes board: http://127.0.0.1:${port}/?token=${TOKEN}`]);
      const page = await fetch(`http://127.0.0.1:${port}/?token=${TOKEN}`);
      expect(page.status).toBe(200);
    } finally {
      await board.stop();
      // script(1) ends, but the board under it takes the pty's SIGHUP as "reload" and then fails
      // every write to the closed pty (EIO), shutdown included: it is killed, not asked.
      killProcessesNaming(config);
    }
  });
});

/** SIGKILL to every process whose command line names `text` (the test's own temp directory). */
function killProcessesNaming(text: string): void {
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (Number(pid) !== process.pid && cmdline.includes(text)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}
