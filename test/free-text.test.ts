import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { agentYaml, OPERATOR } from './helpers/agent-fixtures.js';
import { Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'free-text-board-token-5d7f9b1c3e'; // secret-scan: token
const REGISTRATION = 'free-text-registration-6e8a0c2d4f'; // secret-scan: token
/** Control, escape and bidi-override characters, as an outsider would send them. */
const REASON = 'rack\u0000move\u202E\u2066gnp.exe\r\nfake entry\u001b[31m';
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what the test looks for
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

interface Issue {
  type: string;
  loc: (string | number)[];
}

/**
 * Free text an outsider or an agent can set is refused with 422 (`string_pattern_mismatch` at
 * the field) when it carries control or bidi-override characters; a journal detail that quotes
 * a client has them replaced. Else they would be stored, echoed, journaled and sent.
 */
describe('control and bidi characters in free text are refused at the field, or replaced', () => {
  const dir = tempDir('panoptes-free-text-');
  const http = new Recorder();
  let board: RunningProgram;
  let agent: RunningProgram;
  const post = (url: string, token: string, body: unknown) =>
    http.call(url, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const issues = (json: unknown) =>
    ((json as { detail: Issue[] }).detail ?? []).map((i) => `${i.type} ${i.loc.join('.')}`);

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 60,
      }),
    );
    agent = await startAgent(dir.write('agent.yaml', agentYaml()));
    const first = await post(`${board.url}/api/report`, REGISTRATION, {
      name: 'lab1',
      location: 'http://127.0.0.1:1',
    });
    expect(first.status).toBe(200);
  });
  afterAll(async () => {
    await board?.stop();
    await agent?.stop();
    dir.cleanup();
  });

  it('a silence reason with them is refused at the field, and nothing is stored', async () => {
    const answer = await post(`${board.url}/api/machines/lab1/silence`, TOKEN, {
      minutes: 5,
      reason: REASON,
    });
    expect(answer.status).toBe(422);
    expect(issues(answer.json)).toEqual(['string_pattern_mismatch body.reason']);
    const view = await http.call(`${board.url}/api/board`, { token: TOKEN });
    const lab1 = (view.json as { machines: { name: string; silenced_until: unknown }[] }).machines;
    expect(lab1.find((m) => m.name === 'lab1')?.silenced_until).toBeNull();
    // Ordinary text in any script is taken.
    const fine = await post(`${board.url}/api/machines/lab1/silence`, TOKEN, {
      minutes: 5,
      reason: 'Wartung: Rack 7 zieht um (ラック移動)',
    });
    expect(fine.status).toBe(200);
    expect((fine.json as { reason: string }).reason).toBe('Wartung: Rack 7 zieht um (ラック移動)');
  });

  it('a bell with them is refused by the agent; a bell of several lines is taken', async () => {
    const bad = await post(`${agent.url}/api/bell`, OPERATOR, {
      session: 'ci\u202e7',
      why: 'attention',
      text: 'done\r\nfake line\u001b[2J',
    });
    expect(bad.status).toBe(422);
    expect(issues(bad.json)).toEqual([
      'string_pattern_mismatch body.session',
      'string_pattern_mismatch body.text',
    ]);
    const good = await post(`${agent.url}/api/bell`, OPERATOR, {
      session: 'ci 7',
      why: 'attention',
      text: 'done\n\t3 files changed',
    });
    expect(good.status).toBeLessThan(300);
  });

  it('a report whose sessions carry them is refused at the field', async () => {
    const answer = await post(`${board.url}/api/report`, REGISTRATION, {
      name: 'lab2',
      location: 'http://127.0.0.1:1',
      sessions: [{ session: 's', why: 'error', text: 'x\u001b]0;owned\u0007', at: 'now' }],
    });
    expect(answer.status).toBe(422);
    expect(issues(answer.json)).toEqual(['string_pattern_mismatch body.sessions.0.text']);
  });

  it('a test notification to a channel name with them is refused, not echoed', async () => {
    const answer = await post(`${board.url}/api/notify/test`, TOKEN, { channel: 'ops\u202e' });
    expect(answer.status).toBe(422);
    expect(issues(answer.json)).toEqual(['string_pattern_mismatch body.channel']);
  });

  it('a journal entry that quotes what a machine sent carries no control or bidi character', async () => {
    // An action queued for lab1 (announced, unreachable), then a report with its "result".
    const queued = await http.call(`${board.url}/api/do/lab1/backup/start`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(queued.status).toBe(200);
    const { id } = queued.json as { id: string };
    const answer = await post(`${board.url}/api/report`, REGISTRATION, {
      name: 'lab1',
      location: 'http://127.0.0.1:1',
      results: [{ id, status: 500, body: { detail: REASON } }],
    });
    expect(answer.status).toBe(200);
    const journal = await http.call(`${board.url}/api/journal?limit=50`, { token: TOKEN });
    const entries = (journal.json as { entries: { detail: string }[] }).entries;
    const result = entries.find((e) => e.detail.startsWith(`result of ${id}`));
    expect(result?.detail).toBe(
      `result of ${id}: rack\ufffdmove\ufffd\ufffdgnp.exe\ufffd\ufffdfake entry\ufffd[31m`,
    );
    for (const e of entries) expect(UNSAFE.test(e.detail), e.detail).toBe(false);
  });

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, REGISTRATION, OPERATOR],
    dirs: [dir.path],
  }));
});
