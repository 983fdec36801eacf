import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { keyProof, timedKeyProof } from '../src/shared/wire/key-proof.js';
import { OPERATOR } from './helpers/agent-fixtures.js';
import { eventually, Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'replay-board-token-7c1e9a3b5d'; // secret-scan: token
const REGISTRATION = 'replay-registration-2b4d6f8a0c'; // secret-scan: token
const KEY9 = 'replay-lab9-key-4d6f8a0c2e'; // secret-scan: key
const KEY8 = 'replay-lab8-key-1a3c5e7b9d'; // secret-scan: key

// No token or key of these tests in any answer, message or line the programs wrote.
scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION, OPERATOR, KEY9, KEY8] }));

describe('a captured report with its key_proof cannot be replayed', () => {
  const dir = tempDir('panoptes-replay-');
  const http = new Recorder();
  let board: RunningProgram;
  let agent: RunningProgram;
  const post = (body: object) =>
    http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        announced_keys: { lab9: KEY9, lab8: KEY8 },
      }),
    );
    agent = await startAgent(
      writeAgentConfig(dir, 'a', {
        name: 'lab8',
        token: OPERATOR,
        board_key: KEY8,
        data_dir: `${dir.path}/ad`,
        report: { board: board.url, token: REGISTRATION, interval: 1 },
      }),
    );
  });
  afterAll(async () => {
    await agent?.stop();
    await board?.stop();
    dir.cleanup();
  });

  it('an agent proves its key with a timed proof; a replay of it, or of the untimed form after it, is refused', async () => {
    const location = 'http://lab9.example:8701';
    const legacy = {
      name: 'lab9',
      location,
      key_proof: keyProof(KEY9, 'lab9', location),
    };
    // Agents of the earlier form are still taken (the documented transition)...
    expect((await post(legacy)).status).toBe(200);
    const at = new Date().toISOString();
    const timed = {
      name: 'lab9',
      location,
      key_proof_at: at,
      key_proof: timedKeyProof(KEY9, 'lab9', location, at),
    };
    expect((await post(timed)).status).toBe(200);
    // ...but a captured report is not taken twice, nor is the untimed form once a timed one came.
    const replay = await post(timed);
    expect(replay.status).toBe(403);
    expect((replay.json as { detail: string }).detail).toMatch(/not newer/);
    expect((await post(legacy)).status).toBe(403);
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    const stale = await post({
      ...timed,
      key_proof_at: old,
      key_proof: timedKeyProof(KEY9, 'lab9', location, old),
    });
    expect(stale.status).toBe(403);
    // The real agent's reports carry timed proofs that the board takes, one after another.
    await eventually(async () => {
      const view = (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as {
        machines: { name: string; state: string; overview: Record<string, unknown> | null }[];
      };
      const lab8 = view.machines.find((m) => m.name === 'lab8');
      return lab8?.state === 'up' ? lab8 : undefined;
    }, 'the agent to announce itself');
    await eventually(
      async () =>
        agent.output.filter((l) => l.includes('refused') || l.includes('"level":40')).length ===
          0 &&
        board.output.filter((l) => l.includes('"url":"/api/report"') && l.includes('"status":200'))
          .length >= 3
          ? true
          : undefined,
      'three reports of the agent to be taken',
    );
    const journal = (await http.call(`${board.url}/api/journal?limit=100`, { token: TOKEN }))
      .json as { entries: { op: string; target: string; outcome: string }[] };
    expect(journal.entries.filter((e) => e.target === 'lab8' && e.outcome === 'refused')).toEqual(
      [],
    );
    const view = (await http.call(`${board.url}/api/board`, { token: TOKEN })).text;
    expect(view).not.toContain('key_proof');
  });
});
