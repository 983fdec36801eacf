import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, runToExit, startBoard } from '../harness/processes.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'users-command-board-token-0123456789';
const PASSWORD = 'a password of some length';

const linkIn = (output: string) => /(https?:\S+#signup=\S+)/.exec(output)?.[1] ?? '';

async function post(base: string, path: string, body: unknown, cookie?: string) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
}

const me = async (base: string, cookie: string) =>
  (await fetch(`${base}/api/me`, { headers: { cookie } })).status;

describe('the users command on the store itself', () => {
  const dir = tempDir('panoptes-users-command-');
  let pg: PgServer;
  const boards: RunningProgram[] = [];

  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    for (const b of boards) await b.stop();
    pg?.destroy();
    dir.cleanup();
  });

  it('PostgreSQL: a link made while two boards run works on either; the session on both; removal ends it', async () => {
    const store = await pg.createDatabase('users');
    const config = (id: string) =>
      writeBoardConfig(dir, id, {
        board_token: TOKEN,
        board_id: id,
        store,
        history: false,
        public_url: 'https://board.example',
      });
    // A shared machine under load may take a while to start two boards.
    const [a, b] = await Promise.all([
      startBoard(config('a'), { timeoutMs: 45_000 }),
      startBoard(config('b'), { timeoutMs: 45_000 }),
    ]);
    boards.push(a, b);
    const made = await runToExit('board', [
      'users',
      'add',
      'ada',
      '--role',
      'viewer',
      '--config',
      `${dir.path}/a`,
    ]);
    expect(made.code).toBe(0);
    const link = linkIn(made.output);
    expect(link).toMatch(/^https:\/\/board\.example\/#signup=/);
    // Made on the store by the command, used on board b.
    const set = await post(b.url, '/auth/signup/password', { link, password: PASSWORD });
    expect(set.status).toBe(200);
    const signedIn = await post(a.url, '/auth/password', { name: 'ada', password: PASSWORD });
    expect(signedIn.status).toBe(200);
    expect(await me(a.url, signedIn.cookie)).toBe(200);
    expect(await me(b.url, signedIn.cookie)).toBe(200);
    const journal = await fetch(`${b.url}/api/journal?limit=50`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(await journal.text()).toContain('person_added');

    const removed = await runToExit('board', [
      'users',
      'remove',
      'ada',
      '--config',
      `${dir.path}/b`,
    ]);
    expect(removed.code).toBe(0);
    // Other boards hold a session they looked up for at most 2 s.
    await expect.poll(() => me(a.url, signedIn.cookie), { timeout: 10_000 }).toBe(401);
    await expect.poll(() => me(b.url, signedIn.cookie), { timeout: 10_000 }).toBe(401);
  }, 150_000);

  it('SQLite with no board running: the person is in the file, and the link works once it starts', async () => {
    const configDir = writeBoardConfig(dir, 'lite', { board_token: TOKEN });
    const made = await runToExit('board', [
      'users',
      'add',
      'grace',
      '--role',
      'operator',
      '--selector',
      'env=prod',
      '--config',
      configDir,
    ]);
    expect(made.code).toBe(0);
    expect(linkIn(made.output)).toMatch(/^http:\/\/localhost:8700\/#signup=/);
    const bad = await runToExit('board', [
      'users',
      'add',
      'x',
      '--role',
      'admin',
      '--selector',
      'env in (',
      '--config',
      configDir,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/position/);
    const board = await startBoard(configDir, { timeoutMs: 45_000 });
    boards.push(board);
    const set = await post(board.url, '/auth/signup/password', {
      link: linkIn(made.output),
      password: PASSWORD,
    });
    expect(set.status).toBe(200);
    const answer = await fetch(`${board.url}/api/me`, { headers: { cookie: set.cookie } });
    expect(await answer.json()).toEqual({
      name: 'grace',
      via: 'password',
      bindings: [{ role: 'operator', selector: 'env=prod' }],
    });
  }, 60_000);
});
