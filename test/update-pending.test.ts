import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BoardApp, buildBoard } from '../src/board/app.js';
import { boardSettings } from '../src/board/config/config.js';
import { createLogger } from '../src/shared/logger.js';
import { eventually } from './helpers/agent-fixtures.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'update-pending-board-token-0456';
const REGISTRATION = 'update-pending-registration-0456';
const AGENT = 'export const agent = 4;\n';
const SERVED = createHash('sha256').update(AGENT).digest('hex');
const OLD = '2'.repeat(64);

/**
 * A pending update is kept in the store: a board restarted between the request and the
 * machine's next report hands it over all the same, and journals how it ended, once.
 */
describe('a pending update across a board restart', () => {
  const dir = tempDir('panoptes-update-pending-');
  const files = dirname(dir.write('files/panoptes-agent.mjs', AGENT));
  const auth = { authorization: `Bearer ${TOKEN}` };
  let b: BoardApp | null = null;
  const start = async (): Promise<BoardApp> => {
    const app = await buildBoard({
      settings: boardSettings(
        { board_token: TOKEN, registration_token: REGISTRATION, data_dir: dir.path },
        `${dir.path}/board.yaml`,
        null,
      ),
      logger: createLogger('board', 'silent'),
      agentFiles: files,
    });
    await app.app.ready();
    return app;
  };
  const report = (app: BoardApp, more: object = {}) =>
    app.app.inject({
      method: 'POST',
      url: '/api/report',
      headers: { authorization: `Bearer ${REGISTRATION}` },
      payload: {
        name: 'lab1',
        location: 'http://127.0.0.1:1/lab1',
        updates: 'on',
        agent_file: 'panoptes-agent.mjs',
        agent_sha256: OLD,
        ...more,
      },
    });
  const updates = async (app: BoardApp) => {
    const r = await app.app.inject({ method: 'GET', url: '/api/journal?limit=100', headers: auth });
    return (r.json().entries as { op: string; who: string; outcome: string; detail: string }[])
      .filter((e) => e.op === 'update')
      .reverse();
  };
  afterAll(async () => {
    await b?.close();
    dir.cleanup();
  });

  it('is handed over by the restarted board, and its outcome journaled once', async () => {
    b = await start();
    await report(b);
    const asked = await b.app.inject({
      method: 'POST',
      url: '/api/machines/lab1/update',
      headers: auth,
    });
    expect(asked.statusCode).toBe(202);
    const id = asked.json().id as string;
    await b.close();
    b = await start();
    const restarted = b;
    // Still under way after the restart: a second request is refused.
    expect((await report(restarted)).json().update?.id).toBe(id);
    const again = await restarted.app.inject({
      method: 'POST',
      url: '/api/machines/lab1/update',
      headers: auth,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/already under way/);
    const outcome = {
      state: 'rolled_back',
      to_sha256: SERVED,
      detail: 'the new file exited with code 3',
      at: new Date().toISOString(),
    };
    await report(restarted, { update_outcome: outcome });
    await report(restarted, { update_outcome: outcome });
    await eventually(
      async () => ((await updates(restarted)).length >= 4 ? true : undefined),
      'the outcome',
    );
    await b.close();
    b = await start();
    await report(b, { update_outcome: outcome });
    await new Promise((r) => setTimeout(r, 200));
    expect((await updates(b)).map((e) => `${e.who} ${e.outcome}`)).toEqual([
      'board queued',
      'board delivered',
      'board refused',
      'machine rolled_back',
    ]);
  });
});
