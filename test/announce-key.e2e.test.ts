import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import {
  agentYaml,
  BOARD_KEY,
  eventually,
  Http,
  REGISTRATION,
  SECRETS,
} from './helpers/agent-fixtures.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'announce-key-board-token-4b7e';

/**
 * An announced machine the board holds a key for: the agent proves it holds the key in each
 * report (key_proof), the board relays actions to it directly, and a report from anyone else
 * with the shared registration token cannot move the key to another address.
 */
describe('announce with a key the board holds for the machine', () => {
  const dir = tempDir('panoptes-announce-key-');
  let board: RunningProgram;
  let agent: RunningProgram;
  let http: Http;

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        announced_keys: { lab5: BOARD_KEY },
      }),
    );
    http = new Http(board.url);
    agent = await startAgent(
      dir.write(
        'lab5.yaml',
        agentYaml(
          `data_dir: ${dir.path}/agent-data\n` +
            `report:\n  board: ${board.url}\n  token: ${REGISTRATION}\n  interval: 0.3\n` +
            'services:\n  job:\n    start: [echo, job done]\n    board: [start]\n',
          'lab5',
        ),
      ),
    );
  });

  afterAll(async () => {
    await agent?.stop();
    await board?.stop();
    dir.cleanup();
  });

  it('the board relays directly to the location the agent proved, not queueing', async () => {
    await eventually(async () => {
      const view = (await http.get('/api/board', { token: BOARD_TOKEN })).json;
      const m = view.machines.find((x: { name: string }) => x.name === 'lab5');
      return m?.state === 'up' ? m : undefined;
    }, 'lab5 up');
    const answer = await http.post('/api/do/lab5/job/start', { token: BOARD_TOKEN });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ what: 'job', action: 'start', ok: true, exit_code: 0 });
    expect(answer.json.output).toContain('job done');
  });

  it('a report without the proof, from a registration-token holder, is refused and journaled', async () => {
    const forged = await fetch(`${board.url}/api/report`, {
      method: 'POST',
      headers: { authorization: `Bearer ${REGISTRATION}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab5', location: 'http://127.0.0.1:1' }),
    });
    expect(forged.status).toBe(403);
    const view = (await http.get('/api/board', { token: BOARD_TOKEN })).json;
    const lab5 = view.machines.find((x: { name: string }) => x.name === 'lab5');
    expect(lab5.location).not.toBe('http://127.0.0.1:1');
    const entries = (await http.get('/api/journal?limit=20', { token: BOARD_TOKEN })).json.entries;
    expect(
      entries.some(
        (e: { op: string; outcome: string; status: number }) =>
          e.op === 'report' && e.outcome === 'refused' && e.status === 403,
      ),
    ).toBe(true);
  });

  scanForSecretsAfterAll(() => ({ secrets: [...SECRETS, BOARD_TOKEN], dirs: [dir.path] }));
});
