import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard, startProcess } from '../harness/processes.js';
import {
  agentYaml,
  BOARD_KEY,
  eventually,
  expectNoSecrets,
  Http,
  OPERATOR,
  REGISTRATION,
} from './helpers/agent-fixtures.js';
import { BUNDLE, killStarted, newAgentPid, sha256, updateKeyOf } from './helpers/agent-update.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'update-e2e-board-token-5b2d8f1a';

interface Overview {
  agent_sha256?: string;
  agent_file?: string;
  updates?: string;
  update_outcome?: { state: string; to_sha256: string | null; detail: string };
}

/**
 * Updates from the board with real programs: a board serving agent files from a directory of
 * the test's, and an agent run from a copy of the one-file bundle that opted in. A file that
 * cannot start is rolled back; a good one takes over the port and reports its checksum.
 */
describe('updates from the board: the agent replaces its own file', () => {
  const dir = tempDir('panoptes-update-');
  const served = `${dir.path}/served`;
  const installed = `${dir.path}/agent/panoptes-agent.mjs`;
  const original = readFileSync(BUNDLE);
  const fresh = Buffer.concat([original, Buffer.from('\n// a newer build, for the update test\n')]);
  let board: RunningProgram;
  let agent: RunningProgram;
  let off: RunningProgram;
  let newPid: number | null = null;
  let http: Http;

  const overview = async (url = agent.url): Promise<Overview> =>
    (await new Http(url).get('/api/overview', { token: OPERATOR })).json as Overview;
  const boardRecord = async (): Promise<Overview | undefined> => {
    const view = (await http.get('/api/board', { token: BOARD_TOKEN })).json;
    return view.machines.find((m: { name: string }) => m.name === 'upd1')?.overview;
  };

  beforeAll(async () => {
    dir.write('served/panoptes-agent.mjs', 'process.exit(3);\n');
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        machines: [],
        agent_files: served,
      }),
    );
    http = new Http(board.url);
    dir.write('agent/.keep', '');
    copyFileSync(BUNDLE, installed);
    const config = dir.write(
      'agent/upd1.yaml',
      agentYaml(
        `data_dir: ${dir.path}/agent/data\nupdate_from_board: true\n` +
          `update_key: ${await updateKeyOf(board.url)}\n` +
          `report:\n  board: ${board.url}\n  token: ${REGISTRATION}\n  interval: 0.5\n`,
        'upd1',
      ),
    );
    agent = await startProcess(
      'agent',
      process.execPath,
      [installed, '--config', config, '--host', '127.0.0.1', '--port', '0'],
      { cwd: `${dir.path}/agent`, env: { ...process.env, PANOPTES_LOG_LEVEL: 'debug' } },
    );
    off = await startAgent(
      dir.write('off.yaml', agentYaml(`data_dir: ${dir.path}/off-data\n`, 'off1')),
    );
  });

  afterAll(async () => {
    killStarted(newPid);
    await off?.stop();
    await agent?.stop();
    await board?.stop();
    dir.cleanup();
  });

  it('says which file it runs, its checksum and that it takes updates', async () => {
    expect(await overview()).toMatchObject({
      agent_file: 'panoptes-agent.mjs',
      agent_sha256: sha256(original),
      updates: 'on',
    });
    // Run from a clone's dist, the agent is not one file and says nothing of one.
    const fromDist = await overview(off.url);
    expect(fromDist.updates).toBe('off');
    expect(fromDist.agent_file).toBeUndefined();
  });

  it('an agent with updates off answers 409 and downloads nothing', async () => {
    const answer = await new Http(off.url).post('/api/update', { token: BOARD_KEY });
    expect(answer.status).toBe(409);
    expect(answer.json.detail).toContain('updates from the board are off');
    // The board logs every request at debug level: none was for its agent files.
    expect(board.output.some((line) => line.includes('"url":"/api/report"'))).toBe(true);
    // (The test itself read the update key the config pins.)
    const files = board.output.filter((l) => l.includes('/agent/') && !l.includes('update-key'));
    expect(files).toEqual([]);
  });

  it('a new file that cannot start is rolled back: the old process answers on the same port', async () => {
    const asked = await new Http(agent.url).post('/api/update', { token: BOARD_KEY });
    expect(asked.status).toBe(202);
    expect(asked.json).toEqual({ accepted: true });
    await eventually(
      async () => (board.output.some((l) => l.includes('/agent/SHA256SUMS')) ? true : undefined),
      'the download of SHA256SUMS',
    );
    const after = await eventually(
      async () => {
        const o = await overview().catch(() => undefined);
        return o?.update_outcome?.state === 'rolled_back' ? o : undefined;
      },
      'the rollback',
      400,
    );
    expect(after.update_outcome?.detail).toContain('exited with code 3');
    expect(after.agent_sha256).toBe(sha256(original));
    expect(sha256(readFileSync(installed))).toBe(sha256(original));
    expect(agent.child.exitCode).toBeNull();
    // It reports again.
    await eventually(
      async () =>
        (await boardRecord())?.update_outcome?.state === 'rolled_back' ? true : undefined,
      'the rollback on the board',
    );
  });

  it('a good file takes over: the board sees the new checksum, .prev is the old file', async () => {
    writeFileSync(`${served}/panoptes-agent.mjs`, fresh);
    const started = Date.now();
    // Both at once: one is taken, the other is told an update is under way. (One after the
    // other, the second could find the agent already gone to hand over to the new file.)
    const [asked, again] = await Promise.all([
      new Http(agent.url).post('/api/update', { token: BOARD_KEY }),
      new Http(agent.url).post('/api/update', { token: OPERATOR }),
    ]);
    expect([asked.status, again.status].sort()).toEqual([202, 409]);
    await eventually(
      async () => ((await boardRecord())?.agent_sha256 === sha256(fresh) ? true : undefined),
      'the new checksum on the board',
      600,
    );
    const tookMs = Date.now() - started;
    process.stdout.write(`update: request → new sha256 on the board in ${tookMs} ms\n`);
    const exit = await agent.exited;
    expect(exit.code).toBe(0);
    newPid = newAgentPid(agent);
    expect(newPid).toBeGreaterThan(0);
    expect(sha256(readFileSync(installed))).toBe(sha256(fresh));
    expect(sha256(readFileSync(`${installed}.prev`))).toBe(sha256(original));
    const now = await eventually(async () => {
      const o = await overview().catch(() => undefined);
      return o?.update_outcome?.state === 'updated' ? o : undefined;
    }, 'the outcome updated');
    expect(now).toMatchObject({
      agent_sha256: sha256(fresh),
      update_outcome: { to_sha256: sha256(fresh) },
    });
    // The same file again: refused, nothing replaced.
    const same = await new Http(agent.url).post('/api/update', { token: BOARD_KEY });
    expect(same.status).toBe(202);
    const refused = await eventually(async () => {
      const o = await overview().catch(() => undefined);
      return o?.update_outcome?.state === 'refused' ? o : undefined;
    }, 'the refusal');
    expect(refused.update_outcome?.detail).toBe("already the board's file");
    expect(sha256(readFileSync(`${installed}.prev`))).toBe(sha256(original));
  });

  it('no key or token in what the programs logged', () => {
    expectNoSecrets([...agent.output, ...board.output, ...off.output]);
  });
});
