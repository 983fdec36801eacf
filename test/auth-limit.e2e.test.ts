import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'limit-board-token-0123456789';
const AGENT_TOKEN = 'limit-agent-token-0123456789';

describe('wrong tokens are rate-limited per address, on both programs', () => {
  const dir = tempDir();
  const http = new Recorder();
  let board: RunningProgram;
  let agent: RunningProgram;

  beforeAll(async () => {
    board = await startBoard(writeBoardConfig(dir, 'b', { board_token: BOARD_TOKEN }));
    agent = await startAgent(writeAgentConfig(dir, 'a', { name: 'a1', token: AGENT_TOKEN }));
  });
  afterAll(async () => {
    await board?.stop();
    await agent?.stop();
    dir.cleanup();
  });

  for (const [program, path, token] of [
    ['board', '/api/board', BOARD_TOKEN],
    ['agent', '/api/overview', AGENT_TOKEN],
  ] as const) {
    it(`${program}: 20 wrong tokens a minute, then 429 with Retry-After for that address`, async () => {
      const url = `${program === 'board' ? board.url : agent.url}${path}`;
      // No token at all is not an attempt at guessing one: never limited.
      for (let i = 0; i < 25; i += 1) expect((await http.call(url)).status).toBe(401);
      for (let i = 0; i < 20; i += 1) {
        expect((await http.call(url, { token: `wrong-guess-number-${i}` })).status).toBe(401);
      }
      const limited = await http.call(url, { token: 'wrong-guess-number-20' });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.json).toEqual({
        detail: 'Too many failed authentication attempts; try again later',
      });
      // The address is blocked for the rest of the window, whatever it presents.
      expect((await http.call(url, { token })).status).toBe(429);
    });
  }

  it('never echoes a presented token in a response or a log line', async () => {
    expect(
      http.leaks(
        [BOARD_TOKEN, AGENT_TOKEN, 'wrong-guess-number-'],
        [...board.output, ...agent.output],
      ),
    ).toEqual([]);
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, AGENT_TOKEN], dirs: [dir.path] }));
});
