import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard, startProcess } from '../harness/processes.js';
import { agentYaml, BOARD_KEY, eventually } from './helpers/agent-fixtures.js';
import { BUNDLE, killStarted, newAgentPid, sha256, updateKeyOf } from './helpers/agent-update.js';
import { makeTestCa } from './helpers/certs.js';
import { closedPort, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'polled-update-board-token-3f9a7c21';
interface MachineJson {
  name: string;
  state: string;
  agent: { sha256: string | null; update_available: boolean; updates: string };
  overview: { update_outcome?: { state: string } };
}

/**
 * A polled machine updated from the board: the board relays the request to the agent's
 * POST /api/update with the machine's key; the agent downloads from the https board its config
 * names, and the new file confirms itself at the board's first poll with the board key.
 */
describe('updating a polled machine', () => {
  const dir = tempDir('panoptes-polled-update-');
  const installed = `${dir.path}/agent/panoptes-agent.mjs`;
  const original = readFileSync(BUNDLE);
  const fresh = Buffer.concat([original, Buffer.from('\n// a newer build, for the relay test\n')]);
  let board: RunningProgram;
  let agent: RunningProgram;
  let newPid: number | null = null;

  beforeAll(async () => {
    const ca = makeTestCa(dir);
    const cert = ca.issue('board');
    dir.write('served/panoptes-agent.mjs', '');
    copyFileSync(BUNDLE, `${dir.path}/served/panoptes-agent.mjs`);
    const agentPort = await closedPort();
    const configDir = writeBoardConfig(dir, 'board', {
      board_token: BOARD_TOKEN,
      sweep_interval: 0.3,
      tls: cert,
      machines: [{ name: 'pu1', url: `http://127.0.0.1:${agentPort}`, key: BOARD_KEY }],
      agent_files: `${dir.path}/served`,
    });
    board = await startBoard(configDir);
    dir.write('agent/.keep', '');
    copyFileSync(BUNDLE, installed);
    const config = dir.write(
      'agent/pu1.yaml',
      agentYaml(
        `data_dir: ${dir.path}/agent/data\nupdate_from_board: ${board.url}\n` +
          `update_key: ${await updateKeyOf(board.url, readFileSync(ca.caFile, 'utf8'))}\n`,
        'pu1',
      ),
    );
    agent = await startProcess(
      'agent',
      process.execPath,
      [installed, '--config', config, '--host', '127.0.0.1', '--port', String(agentPort)],
      // The board's certificate is signed by the test's CA: trusted as a system CA would be.
      { cwd: `${dir.path}/agent`, env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.caFile } },
    );
  });

  afterAll(async () => {
    killStarted(newPid);
    await agent?.stop();
    await board?.stop();
    dir.cleanup();
  });

  it('the board relays the update; the agent takes the file and the board sees it', async () => {
    const trusting = new Agent({ connect: { ca: readFileSync(`${dir.path}/ca.pem`, 'utf8') } });
    const call = async (method: string, path: string) => {
      const r = await fetch(`${board.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${BOARD_TOKEN}` },
        dispatcher: trusting,
      });
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    };
    const record = async () => {
      const view = (await call('GET', '/api/board')).json as { machines: MachineJson[] };
      return view.machines.find((m) => m.name === 'pu1');
    };
    await eventually(async () => ((await record())?.state === 'up' ? true : undefined), 'up');
    // The board serves the same file the agent runs: nothing to do.
    expect((await record())?.agent).toMatchObject({ sha256: sha256(original), updates: 'on' });
    const current = await call('POST', '/api/machines/pu1/update');
    expect(current.status).toBe(409);
    writeFileSync(`${dir.path}/served/panoptes-agent.mjs`, fresh);
    await eventually(
      async () => ((await record())?.agent.update_available ? true : undefined),
      'the new file offered',
      1200,
    );
    const asked = await call('POST', '/api/machines/pu1/update');
    expect(asked.status).toBe(202);
    expect(asked.json).toMatchObject({ handed: 'relayed' });
    const exit = await agent.exited;
    newPid = newAgentPid(agent);
    expect(exit.code).toBe(0);
    const now = await eventually(
      async () => {
        const r = await record();
        return r?.agent.sha256 === sha256(fresh) && r.state === 'up' ? r : undefined;
      },
      'the new file on the board',
      600,
    );
    expect(now.overview.update_outcome).toMatchObject({ state: 'updated' });
    expect(sha256(readFileSync(installed))).toBe(sha256(fresh));
    await trusting.close();
  });
});
