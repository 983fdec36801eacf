import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { OPERATOR } from './helpers/agent-fixtures.js';
import { eventually, Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'redact-board-token-7c1e9a3b5d'; // secret-scan: token

// No token or key of these tests in any answer, message or line the programs wrote.
scanForSecretsAfterAll(() => ({ secrets: [TOKEN, OPERATOR] }));

describe('token parameters are redacted by their parsed names in every logged URL', () => {
  const dir = tempDir('panoptes-redact-');
  const http = new Recorder();
  let board: RunningProgram;
  let agent: RunningProgram;
  const escapes = ['%74oken', 'tok%65n', '%74%6F%6B%65%6E', 'TOK%45N'];

  beforeAll(async () => {
    board = await startBoard(writeBoardConfig(dir, 'b', { board_token: TOKEN }));
    agent = await startAgent(
      writeAgentConfig(dir, 'a', { name: 'redact1', token: OPERATOR, data_dir: `${dir.path}/ad` }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    await agent?.stop();
    dir.cleanup();
  });

  it('?%74oken=, tok%65n=, fully escaped and repeated names authenticate, and never reach the log', async () => {
    for (const name of escapes.slice(0, 3)) {
      // The parser decodes the name, so these authenticate: the redaction must see them too.
      const r = await http.call(`${board.url}/api/board?${name}=${TOKEN}`);
      expect(r.status, name).toBe(200);
      const a = await http.call(`${agent.url}/api/overview?${name}=${OPERATOR}`);
      expect(a.status, name).toBe(200);
    }
    const repeated = escapes.map((n) => `${n}=${TOKEN}`).join('&');
    expect((await http.call(`${board.url}/api/board?x=1&${repeated}&token=${TOKEN}`)).status).toBe(
      200,
    );
    await http.call(
      `${agent.url}/api/overview?${escapes.map((n) => `${n}=${OPERATOR}`).join('&')}`,
    );
    await eventually(
      async () =>
        board.output.filter((l) => l.includes('"request"')).length >= 4 ? true : undefined,
      'the board to log its requests',
    );
    await eventually(
      async () =>
        agent.output.filter((l) => l.includes('"request"')).length >= 4 ? true : undefined,
      'the agent to log its requests',
    );
    const logs = [...board.output, ...agent.output].join('\n');
    expect(logs).toContain('[redacted]');
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(OPERATOR);
  });
});
