import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'shutdown-board-token-9b1d3f5a7c'; // secret-scan: token
const REGISTRATION = 'shutdown-registration-0c2e4a6b8d'; // secret-scan: token

/** Raw history rows in a history.db, read with (or, copied alone, without) its WAL. */
function rawRows(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM raw').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/**
 * A clean stop checkpoints history.db's write-ahead log, so that the data directory is whole
 * without a WAL replay: history.db alone, copied without its -wal, holds every row.
 */
describe('a clean shutdown leaves the history file whole', () => {
  const dir = tempDir('panoptes-shutdown-');
  const http = new Recorder();
  afterAll(() => dir.cleanup());

  it('after SIGTERM no WAL is left to replay', async () => {
    const board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.3,
      }),
    );
    for (const name of ['lab1', 'lab2', 'lab3']) {
      const answer = await http.call(`${board.url}/api/report`, {
        method: 'POST',
        token: REGISTRATION,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, location: 'http://127.0.0.1:1' }),
      });
      expect(answer.status).toBe(200);
    }
    // A few sweeps recorded (and read back, so the reading connection has been used too).
    await eventually(async () => {
      const answer = await http.call(`${board.url}/api/machines/lab1/history?range=1h`, {
        token: TOKEN,
      });
      const up = (answer.json as { series?: { up: (number | null)[] } }).series?.up ?? [];
      return up.filter((v) => v !== null).length >= 1 ? true : undefined;
    }, 'history of lab1');
    await new Promise((r) => setTimeout(r, 1000));
    const data = join(dir.path, 'b', 'data');
    const wal = join(data, 'history.db-wal');
    expect(statSync(wal).size).toBeGreaterThan(0);

    const stopped = await board.stop();
    expect(stopped.code).toBe(0);
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
    const alone = join(dir.path, 'alone');
    mkdirSync(alone);
    copyFileSync(join(data, 'history.db'), join(alone, 'history.db'));
    const rows = rawRows(join(data, 'history.db'));
    expect(rows).toBeGreaterThanOrEqual(3);
    expect(rawRows(join(alone, 'history.db'))).toBe(rows);
  }, 60_000);

  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION], dirs: [dir.path] }));
});
