import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningProgram, runToExit, startBoard, startProgram } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'backup-board-token-3c5e7a9b1d2f'; // secret-scan: token
const REGISTRATION = 'backup-registration-4d6f8b0c2e3a'; // secret-scan: token

interface Journal {
  entries: { op: string; target: string; outcome: string; detail: string }[];
}

/**
 * `backup FILE` copies a running board's store (while it is written to) into one archive;
 * `restore FILE` puts it into a fresh data directory (never under a running board), and a
 * board started there has the machines added from the page, the journal and the history.
 */
describe('backup and restore of the embedded store', () => {
  const dir = tempDir('panoptes-backup-');
  const http = new Recorder();
  const outputs: string[] = [];
  const embeddedSecrets: string[] = [];
  afterAll(() => dir.cleanup());

  async function journalOf(board: RunningProgram): Promise<Journal> {
    return (await http.call(`${board.url}/api/journal?limit=10000`, { token: TOKEN }))
      .json as Journal;
  }

  async function historyPoints(board: RunningProgram, name: string): Promise<number> {
    const answer = await http.call(`${board.url}/api/machines/${name}/history?range=1h`, {
      token: TOKEN,
    });
    const up = (answer.json as { series?: { up: (number | null)[] } }).series?.up ?? [];
    return up.filter((v) => v !== null).length;
  }

  it('a running board, backed up while written to, restored into a new data directory', async () => {
    const config = { board_token: TOKEN, registration_token: REGISTRATION, sweep_interval: 0.3 };
    const from = writeBoardConfig(dir, 'from', config);
    const board = await startBoard(from);
    let writing = true;
    let writes = 0;
    const writer = (async () => {
      // Reports and silences (journaled) go on while the backup is taken.
      while (writing) {
        await http.call(`${board.url}/api/report`, {
          method: 'POST',
          token: REGISTRATION,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'lab1', location: 'http://127.0.0.1:1' }),
        });
        const silence =
          writes % 2 === 0
            ? await http.call(`${board.url}/api/machines/lab1/silence`, {
                method: 'POST',
                token: TOKEN,
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ minutes: 5 }),
              })
            : await http.call(`${board.url}/api/machines/lab1/silence`, {
                method: 'DELETE',
                token: TOKEN,
              });
        if (silence.status === 200) writes += 1;
      }
    })();
    const backupFile = `${dir.path}/board.tar`;
    try {
      const enrolled = await http.call(`${board.url}/api/machines/lab7/enroll`, {
        method: 'POST',
        token: TOKEN,
      });
      expect(enrolled.status).toBe(200);
      await eventually(
        async () => ((await historyPoints(board, 'lab1')) >= 2 ? true : undefined),
        'history of lab1',
      );
      await eventually(async () => (writes >= 10 ? true : undefined), 'writes under way');
      const before = writes;
      const made = await runToExit('board', ['backup', backupFile, '--config', from]);
      outputs.push(made.output);
      expect(made.code, made.output).toBe(0);
      expect(made.output).toContain('state.db');
      expect(made.output).toContain('history.db');
      // The board was written to while the backup ran.
      expect(writes).toBeGreaterThan(before);
      expect(statSync(backupFile).mode & 0o777).toBe(0o600);
      // An ordinary tar archive: the system's tar lists it.
      const listed = execFileSync('tar', ['-tf', backupFile], { encoding: 'utf8' });
      expect(listed.split('\n').filter(Boolean)).toEqual([
        'panoptes-backup.json',
        'state.db',
        'history.db',
      ]);
      // A second backup to the same name is refused, not overwritten.
      const again = await runToExit('board', ['backup', backupFile, '--config', from]);
      outputs.push(again.output);
      expect(again.code).toBe(1);
      expect(again.output).toContain('exists');
    } finally {
      writing = false;
      await writer;
      expect((await board.stop()).code).toBe(0);
    }

    const to = writeBoardConfig(dir, 'to', config);
    const restored = await runToExit('board', ['restore', backupFile, '--config', to]);
    outputs.push(restored.output);
    expect(restored.code, restored.output).toBe(0);
    expect(existsSync(`${to}/data/state.db`)).toBe(true);

    const second = await startBoard(to);
    try {
      const enrollments = (await http.call(`${second.url}/api/enrollments`, { token: TOKEN }))
        .json as { enrollments: { name: string }[] };
      expect(enrollments.enrollments.map((e) => e.name)).toEqual(['lab7']);
      const journal = await journalOf(second);
      expect(journal.entries.some((e) => e.op === 'enroll' && e.target === 'lab7')).toBe(true);
      expect(journal.entries.filter((e) => e.op === 'silence').length).toBeGreaterThanOrEqual(10);
      expect(await historyPoints(second, 'lab1')).toBeGreaterThanOrEqual(2);

      // Never over a running board's files.
      const refused = await runToExit('board', ['restore', backupFile, '--config', to]);
      outputs.push(refused.output);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('a board is running on');
      expect(refused.output).toContain('stop it before restoring');
      expect((await http.call(`${second.url}/api/enrollments`, { token: TOKEN })).status).toBe(200);
    } finally {
      expect((await second.stop()).code).toBe(0);
    }
  }, 120_000);

  it('the embedded default: restored as it was, or moved to a board of its own config', async () => {
    const env = { PANOPTES_DATA_DIR: `${dir.path}/embedded` };
    const first = await startProgram('start', [], { env });
    const tokensFile = `${dir.path}/embedded/embedded-tokens.json`;
    const tokens = JSON.parse(readFileSync(tokensFile, 'utf8')) as {
      board_token: string;
      registration_token: string;
    };
    embeddedSecrets.push(tokens.board_token, tokens.registration_token);
    const file = `${dir.path}/embedded.tar`;
    try {
      const enrolled = await http.call(`${first.url}/api/machines/lab8/enroll`, {
        method: 'POST',
        token: tokens.board_token,
      });
      expect(enrolled.status).toBe(200);
      const made = await runToExit('start', ['backup', file], { env });
      outputs.push(made.output);
      expect(made.code, made.output).toBe(0);
      expect(made.output).toContain('embedded-tokens.json');
    } finally {
      expect((await first.stop()).code).toBe(0);
    }

    // Into a fresh embedded default: the same tokens, the same machines.
    const fresh = { PANOPTES_DATA_DIR: `${dir.path}/embedded-again` };
    const back = await runToExit('start', ['restore', file], { env: fresh });
    outputs.push(back.output);
    expect(back.code, back.output).toBe(0);
    const again = await startProgram('start', [], { env: fresh });
    try {
      const list = await http.call(`${again.url}/api/enrollments`, { token: tokens.board_token });
      expect(list.status).toBe(200);
      expect((list.json as { enrollments: { name: string }[] }).enrollments[0]?.name).toBe('lab8');
    } finally {
      expect((await again.stop()).code).toBe(0);
    }

    // Into a board of its own config (the move to /etc/panoptes): the store comes, the tokens
    // stay behind and the command says what to put in board.yaml.
    // Its tokens in the service's environment only (as in board.env): restore needs none.
    const own = writeBoardConfig(dir, 'own', {
      data_dir: 'state',
      announced_keys_only: true,
    });
    const moved = await runToExit('board', ['restore', file, '--config', own]);
    outputs.push(moved.output);
    expect(moved.code, moved.output).toBe(0);
    expect(moved.output).toContain('not restored');
    expect(moved.output).toContain('registration_token');
    expect(existsSync(`${own}/state/state.db`)).toBe(true);
    const board = await startBoard(own, {
      env: {
        PANOPTES_BOARD_TOKEN: TOKEN,
        PANOPTES_REGISTRATION_TOKEN: tokens.registration_token,
      },
    });
    try {
      const list = await http.call(`${board.url}/api/enrollments`, { token: TOKEN });
      expect((list.json as { enrollments: { name: string }[] }).enrollments[0]?.name).toBe('lab8');
    } finally {
      expect((await board.stop()).code).toBe(0);
    }
  }, 120_000);

  it('refuses a file that is not a backup, and a damaged one, changing nothing', async () => {
    const to = writeBoardConfig(dir, 'damaged', {
      board_token: TOKEN,
      registration_token: REGISTRATION,
    });
    const notTar = dir.write('not-a-backup.tar', 'hello\n'.repeat(200));
    const first = await runToExit('board', ['restore', notTar, '--config', to]);
    outputs.push(first.output);
    expect(first.code).toBe(1);
    expect(first.output).toContain('not a tar file');
    // One byte of state.db changed in the archive: its checksum no longer matches.
    const bytes = readFileSync(`${dir.path}/board.tar`);
    const at = bytes.indexOf(Buffer.from('SQLite format 3')) + 2000;
    bytes[at] = (bytes[at] ?? 0) ^ 0xff;
    const damaged = `${dir.path}/damaged.tar`;
    writeFileSync(damaged, bytes);
    const second = await runToExit('board', ['restore', damaged, '--config', to]);
    outputs.push(second.output);
    expect(second.code).toBe(1);
    expect(second.output).toContain('does not match its checksum');
    expect(existsSync(`${to}/data/state.db`)).toBe(false);
    // A PostgreSQL store is pg_dump's to back up; the URL (its password) is never repeated.
    const pg = writeBoardConfig(dir, 'pg', {
      board_token: TOKEN,
      store: 'postgres://panoptes:pg-secret-password-1234@127.0.0.1:1/panoptes',
    });
    const refused = await runToExit('board', ['backup', `${dir.path}/pg.tar`, '--config', pg]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('pg_dump');
    expect(refused.output).not.toContain('pg-secret-password');
  });

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, REGISTRATION, ...embeddedSecrets],
    texts: outputs,
    recorders: [http],
    // The embedded default's address line carries its token, by design.
    allowLine: (line) => /^ {2}http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/.test(line),
    // The enroll answer holds the registration token in its command, by design.
    allowText: (text) => /^\{"name":"lab[78]","key":/.test(text),
  }));
});
