import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'full-disk-board-token-7f9b1d3e5a'; // secret-scan: token
const REGISTRATION = 'full-disk-registration-8a0c2e4b6d'; // secret-scan: token

/**
 * The board's data directory on a filesystem of its own (a 4 MiB tmpfs in a private mount
 * namespace: `unshare -m`, which needs root or user namespaces). The test reaches it through
 * /proc/PID/root, where the board's mounts are seen.
 */
function canMountPrivately(dir: string): boolean {
  mkdirSync(dir, { recursive: true });
  const probe = spawnSync('unshare', [
    '-m',
    'sh',
    '-c',
    `mount -t tmpfs -o size=64k tmpfs '${dir}'`,
  ]);
  return probe.status === 0;
}

/**
 * With its data directory on a full filesystem the board answers what it must store (an action
 * to queue, a silence) with 503 and a detail that says it cannot store it now, not 500; it logs
 * one line when writing starts to fail and one, with a count, when it works again, not one per
 * failed write.
 */
describe('a full disk: 503 for what must be stored, one log line each way', () => {
  const dir = tempDir('panoptes-full-disk-');
  const data = join(dir.path, 'data');
  const mountable = canMountPrivately(data);
  const http = new Recorder();
  let board: RunningProgram;
  const inBoard = (path: string) => `/proc/${board.pid}/root${path}`;
  const queue = () =>
    http.call(`${board.url}/api/do/lab1/backup/start`, { method: 'POST', token: TOKEN });

  beforeAll(async () => {
    if (!mountable) return;
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.5,
        data_dir: data,
      }),
      {
        wrap: [
          'unshare',
          '-m',
          'sh',
          '-c',
          'mount -t tmpfs -o size=4m tmpfs "$0" && exec "$@"',
          data,
        ],
      },
    );
    const report = await http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab1', location: 'http://127.0.0.1:1' }),
    });
    expect(report.status).toBe(200);
    expect((await queue()).status).toBe(200);
  });
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it.skipIf(!mountable)(
    'answers 503 while full, logs it twice in all, and recovers',
    async () => {
      // Fill the board's filesystem to the last byte.
      const filler = inBoard(join(data, 'filler'));
      let written = 0;
      for (const size of [64 * 1024, 4096, 1]) {
        try {
          for (;;) {
            writeFileSync(filler, Buffer.alloc(size), { flag: 'a' });
            written += size;
          }
        } catch (error) {
          expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
        }
      }
      expect(written).toBeGreaterThan(0);
      // The queue file's last page may still take a few lines (tmpfs allocates in pages).
      let taken = 0;
      while (taken < 100 && (await queue()).status === 200) taken += 1;
      expect(taken).toBeLessThan(100);

      for (let i = 0; i < 3; i++) {
        const answer = await queue();
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('10');
        expect(answer.json).toEqual({
          detail:
            'Cannot store this now (store unavailable: no space left on device); try again later',
        });
      }
      // A silence that cannot be kept is refused and not applied.
      const silence = await http.call(`${board.url}/api/machines/lab1/silence`, {
        method: 'POST',
        token: TOKEN,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ minutes: 5 }),
      });
      expect(silence.status).toBe(503);
      // The view and health go on.
      const view = await http.call(`${board.url}/api/board`, { token: TOKEN });
      expect(view.status).toBe(200);
      const lab1 = (view.json as { machines: { name: string; silenced_until: unknown }[] })
        .machines;
      expect(lab1.find((m) => m.name === 'lab1')?.silenced_until).toBeNull();
      expect((await http.call(`${board.url}/api/health`)).status).toBe(200);
      // Sweeps every 0.5 s keep failing to write history: counted, not logged.
      await new Promise((r) => setTimeout(r, 3000));
      const errors = () => board.output.filter((l) => /"level":(50|60)/.test(l));
      console.log(
        errors()
          .map((l) => l.slice(0, 400))
          .join('\n'),
      );
      expect(errors()).toHaveLength(1);
      expect(errors()[0]).toContain('store cannot write (no space left on device)');

      rmSync(filler);
      // The store is probed with backoff (at most 10 s apart) while it cannot write.
      await eventually(
        async () => ((await queue()).status === 200 ? true : undefined),
        'a queued action',
        30_000,
      );
      // Once writes have worked for 5 s (sweeps write history every 0.5 s).
      await eventually(
        async () => (board.output.some((l) => l.includes('store writes again')) ? true : undefined),
        'the line that says the store writes again',
      );
      const back = board.output.filter((l) => l.includes('store writes again'));
      expect(back).toHaveLength(1);
      expect(Number(/"failed_writes":(\d+)/.exec(back[0] ?? '')?.[1])).toBeGreaterThanOrEqual(4);
      expect(errors()).toHaveLength(1);
      // Every action acknowledged before, during (none) and after the full disk is still queued.
      const after = await http.call(`${board.url}/api/board`, { token: TOKEN });
      const queued = (after.json as { machines: { name: string; queued: number }[] }).machines.find(
        (m) => m.name === 'lab1',
      )?.queued;
      expect(queued).toBe(1 + taken + 1);
    },
    60_000,
  );

  it.runIf(!mountable)('is skipped here: this machine cannot mount a private tmpfs', () => {
    console.log('full-disk: unshare -m with mount is not permitted on this machine');
  });

  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION], dirs: [dir.path] }));
});
