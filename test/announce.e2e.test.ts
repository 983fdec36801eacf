import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import {
  agentYaml,
  eventually,
  expectNoSecrets,
  Http,
  OPERATOR,
  REGISTRATION,
  SECRETS,
} from './helpers/agent-fixtures.js';
import { closedPort, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'announce-e2e-board-token-7d1c9e';

interface Entry {
  id: string;
  at: string;
  who: string;
  op: string;
  target: string;
  outcome: string;
  status: number | null;
  detail: string;
}

/**
 * The whole announce path with real programs: a board, and an agent behind "one-way NAT" (its
 * location is a dead port and the board holds no key for it). An action queued on the board is
 * handed over at the agent's next report, run there under the board-key policy, and its result
 * lands in the board's journal.
 */
describe('announce: board queue → agent runs → result in the journal', () => {
  const dir = tempDir('panoptes-announce-');
  const ranFile = `${dir.path}/ran.txt`;
  let board: RunningProgram;
  let agent: RunningProgram;
  let http: Http;

  const journal = async (): Promise<Entry[]> =>
    (await http.get('/api/journal?limit=50', { token: BOARD_TOKEN })).json.entries;
  const lines = (entries: Entry[]) =>
    entries.map((e) => `${e.op} ${e.target} ${e.outcome} ${e.status}`);

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        machines: [],
      }),
    );
    http = new Http(board.url);
    const unreachable = `http://127.0.0.1:${await closedPort()}`;
    agent = await startAgent(
      dir.write(
        'lab3.yaml',
        agentYaml(
          `location: ${unreachable}\ndata_dir: ${dir.path}/agent-data\n` +
            `report:\n  board: ${board.url}\n  token: ${REGISTRATION}\n  interval: 0.3\n` +
            'services:\n' +
            `  job:\n    start: [sh, -c, "echo ran >> ${ranFile}; echo job done"]\n    board: [start]\n` +
            '  private:\n    start: ["true"]\n',
          'lab3',
        ),
      ),
    );
  });

  afterAll(async () => {
    await agent?.stop();
    await board?.stop();
    dir.cleanup();
  });

  it('the agent appears on the board as an announced machine with its overview', async () => {
    const machine = await eventually(async () => {
      const view = (await http.get('/api/board', { token: BOARD_TOKEN })).json;
      return view.machines.find((m: { name: string }) => m.name === 'lab3');
    }, 'lab3 on the board');
    expect(machine).toMatchObject({ origin: 'announced', state: 'up' });
    expect(machine.overview.services.map((s: { name: string }) => s.name)).toEqual([
      'job',
      'private',
    ]);
    // The machine is on the board a moment before its first report is answered (and journaled).
    await eventually(
      async () =>
        (await journal()).some((e) => e.op === 'announce' && e.target === 'lab3')
          ? true
          : undefined,
      'the announcement in the journal',
    );
  });

  it('a queued action is run by the agent once and its result is journaled', async () => {
    const queued = await http.post('/api/do/lab3/job/start', { token: BOARD_TOKEN });
    expect(queued.status).toBe(200);
    expect(queued.json).toMatchObject({ queued: true, name: 'lab3', what: 'job', action: 'start' });
    const refused = await http.post('/api/do/lab3/private/start', { token: BOARD_TOKEN });
    expect(refused.json).toMatchObject({ queued: true });

    const entries = await eventually(async () => {
      const all = await journal();
      const done = lines(all);
      return done.includes('do lab3/job/start done 200') &&
        done.includes('do lab3/private/start refused 403')
        ? all
        : undefined;
    }, 'both results in the journal');
    const done = entries.find((e) => e.target === 'lab3/job/start' && e.outcome === 'done');
    expect(done?.detail).toContain(queued.json.id);
    const no = entries.find((e) => e.target === 'lab3/private/start' && e.outcome === 'refused');
    expect(no?.detail).toContain("the board may not start 'private' on lab3");
    expect(lines(entries)).toContain('do lab3/job/start delivered null');
    expect(readFileSync(ranFile, 'utf8')).toBe('ran\n');

    // Nothing is left queued, and later reports run nothing again.
    const machine = await eventually(async () => {
      const view = (await http.get('/api/board', { token: BOARD_TOKEN })).json;
      const m = view.machines.find((x: { name: string }) => x.name === 'lab3');
      return m?.queued === 0 ? m : undefined;
    }, 'an empty queue');
    expect(machine.state).toBe('up');
    await new Promise((r) => setTimeout(r, 1000));
    expect(readFileSync(ranFile, 'utf8')).toBe('ran\n');
  });

  it('no agent token, board key or registration token leaks into answers or logs', () => {
    expectNoSecrets([...http.seen, ...agent.output, ...board.output], SECRETS);
    expectNoSecrets([...agent.output], [BOARD_TOKEN, OPERATOR]);
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [...SECRETS, BOARD_TOKEN], dirs: [dir.path] }));
});
