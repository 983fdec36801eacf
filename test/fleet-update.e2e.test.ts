import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard, startProcess } from '../harness/processes.js';
import {
  agentYaml,
  BOARD_KEY,
  eventually,
  expectNoSecrets,
  Http,
  REGISTRATION,
} from './helpers/agent-fixtures.js';
import { BUNDLE, killStarted, newAgentPid, sha256, updateKeyOf } from './helpers/agent-update.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'fleet-update-board-token-8c1e2a90';

interface AgentRecord {
  version: string | null;
  sha256: string | null;
  update_available: boolean;
  updates: 'on' | 'off';
}
interface Entry {
  op: string;
  target: string;
  outcome: string;
  detail: string;
}

/**
 * Updating a fleet from the board's API, with real programs all the way: a board serving agent
 * files from a directory of the test's, and announced agents, each run from its own copy of the
 * one-file bundle. The board asks, the agents fetch, check, swap and report; the journal and the
 * records show it. A file that cannot start is rolled back on the machine and journaled.
 */
describe('updating a fleet from the board', () => {
  const dir = tempDir('panoptes-fleet-update-');
  const served = `${dir.path}/served`;
  const original = readFileSync(BUNDLE);
  const fresh = Buffer.concat([original, Buffer.from('\n// a newer build, for the fleet test\n')]);
  const names = ['fu1', 'fu2', 'fu3'];
  let board: RunningProgram;
  let http: Http;
  const agents = new Map<string, RunningProgram>();
  const newPids: (number | null)[] = [];

  const records = async (): Promise<Map<string, AgentRecord>> => {
    const view = (await http.get('/api/board', { token: BOARD_TOKEN })).json;
    return new Map(
      view.machines.map((m: { name: string; agent: AgentRecord }) => [m.name, m.agent]),
    );
  };
  const journal = async (): Promise<Entry[]> =>
    (await http.get('/api/journal?limit=500', { token: BOARD_TOKEN })).json.entries;

  beforeAll(async () => {
    dir.write('served/panoptes-agent.mjs', 'process.exit(3);\n');
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        machines: [],
        agent_files: served,
        // Their reports prove their keys: "update all" takes only verified announced machines.
        announced_keys: Object.fromEntries(names.map((n) => [n, BOARD_KEY])),
      }),
    );
    http = new Http(board.url);
    for (const name of names) {
      const installed = dir.write(`${name}/panoptes-agent.mjs`, '');
      copyFileSync(BUNDLE, installed);
      // fu3 did not opt in.
      const updates =
        name === 'fu3'
          ? ''
          : `update_from_board: true\nupdate_key: ${await updateKeyOf(board.url)}\n`;
      const config = dir.write(
        `${name}/agent.yaml`,
        agentYaml(
          `data_dir: ${dir.path}/${name}/data\n${updates}` +
            `report:\n  board: ${board.url}\n  token: ${REGISTRATION}\n  interval: 0.5\n`,
          name,
        ),
      );
      agents.set(
        name,
        await startProcess(
          'agent',
          process.execPath,
          [installed, '--config', config, '--host', '127.0.0.1', '--port', '0'],
          { cwd: `${dir.path}/${name}` },
        ),
      );
    }
    await eventually(async () => ((await records()).size === 3 ? true : undefined), 'reports');
  });

  afterAll(async () => {
    for (const pid of newPids) killStarted(pid);
    for (const agent of agents.values()) await agent.stop();
    await board?.stop();
    dir.cleanup();
  });

  it('a record says what its agent runs and whether the board has another file', async () => {
    const all = await records();
    expect(all.get('fu1')).toEqual({
      version: expect.any(String),
      sha256: sha256(original),
      update_available: true,
      updates: 'on',
      last_update: null,
    });
    expect(all.get('fu3')).toMatchObject({ sha256: sha256(original), updates: 'off' });
    const refused = await http.post('/api/machines/fu3/update', { token: BOARD_TOKEN });
    expect(refused.status).toBe(409);
  });

  it('a file that cannot start: the machine rolls back, the journal says why', async () => {
    const asked = await http.post('/api/machines/fu1/update', { token: BOARD_TOKEN });
    expect(asked.status).toBe(202);
    const rolled = await eventually(
      async () =>
        (await journal()).find(
          (e) => e.op === 'update' && e.target === 'fu1' && e.outcome === 'rolled_back',
        ),
      'rolled_back in the journal',
      600,
    );
    expect(rolled.detail).toContain('exited with code 3');
    expect((await records()).get('fu1')?.sha256).toBe(sha256(original));
    expect(agents.get('fu1')?.child.exitCode).toBeNull();
    expect(sha256(readFileSync(`${dir.path}/fu1/panoptes-agent.mjs`))).toBe(sha256(original));
  });

  it('update all: every machine that opted in runs the board file, journaled updated', async () => {
    writeFileSync(`${served}/panoptes-agent.mjs`, fresh);
    await eventually(
      async () => ((await records()).get('fu2')?.update_available ? true : undefined),
      'the new file offered',
    );
    const asked = await http.post('/api/machines/update', { token: BOARD_TOKEN });
    expect(asked.status).toBe(202);
    expect([...asked.json.machines].sort()).toEqual(['fu1', 'fu2']);
    const all = await eventually(
      async () => {
        const r = await records();
        return r.get('fu1')?.sha256 === sha256(fresh) && r.get('fu2')?.sha256 === sha256(fresh)
          ? r
          : undefined;
      },
      'both machines on the new file',
      1200,
    );
    // The new processes outlive the old ones: known first, so afterAll stops them whatever fails.
    for (const name of ['fu1', 'fu2']) {
      const agent = agents.get(name) as RunningProgram;
      await agent.exited;
      newPids.push(newAgentPid(agent));
    }
    expect(all.get('fu3')).toMatchObject({ sha256: sha256(original), update_available: true });
    // The board takes its files' sums again every 10 s.
    await eventually(
      async () => ((await records()).get('fu1')?.update_available === false ? true : undefined),
      'fu1 current',
      1200,
    );
    for (const name of ['fu1', 'fu2']) {
      const agent = agents.get(name) as RunningProgram;
      expect((await agent.exited).code).toBe(0);
      expect(sha256(readFileSync(`${dir.path}/${name}/panoptes-agent.mjs`))).toBe(sha256(fresh));
    }
    const updated = await eventually(async () => {
      const entries = (await journal()).filter((e) => e.op === 'update' && e.outcome === 'updated');
      return entries.length >= 2 ? entries : undefined;
    }, 'updated in the journal');
    expect(updated.map((e) => e.target).sort()).toEqual(['fu1', 'fu2']);
  });

  it('no key or token in what the programs logged', () => {
    expectNoSecrets([...board.output, ...[...agents.values()].flatMap((a) => a.output)]);
  });
});
