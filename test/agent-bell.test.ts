import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent } from '../harness/processes.js';
import {
  agentYaml,
  BOARD_KEY,
  expectNoSecrets,
  Http,
  OPERATOR,
  SECRETS,
} from './helpers/agent-fixtures.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const BELL = fileURLToPath(new URL('../dist/agent/bell.js', import.meta.url));
const dir = tempDir('panoptes-agent-bell-');
let agent: RunningProgram;
let http: Http;
const cliOutput: string[] = [];

beforeAll(async () => {
  agent = await startAgent(dir.write('agent.yaml', agentYaml(`data_dir: ${dir.path}/data\n`)));
  http = new Http(agent.url);
});

afterAll(async () => {
  await agent?.stop();
  dir.cleanup();
});

async function sessions() {
  return (await http.get('/api/overview', { token: OPERATOR })).json.sessions;
}

/** Runs dist/agent/bell.js with args, env and stdin; resolves with its exit code and output. */
async function bell(args: string[], env: NodeJS.ProcessEnv, stdin = '') {
  const child = spawn(process.execPath, [BELL, ...args], {
    cwd: dir.path,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stdin.end(stdin);
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  cliOutput.push(output);
  return { code, output };
}

describe('agent: POST /api/bell', () => {
  it('keeps the latest bell per session and shows it in the overview, newest first', async () => {
    const ring = (session: string, why: string, text: string) =>
      http.post('/api/bell', { token: OPERATOR, body: { session, why, text } });
    const first = await ring('build', 'attention', 'needs a decision');
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ ok: true });
    await ring('deploy', 'finished', 'all green');
    await ring('build', 'error', 'tests failed');
    const list = await sessions();
    expect(
      list.map((s: { session: string; why: string; text: string }) => [s.session, s.why, s.text]),
    ).toEqual([
      ['build', 'error', 'tests failed'],
      ['deploy', 'finished', 'all green'],
    ]);
    expect(Math.abs(Date.parse(list[0].at) - Date.now())).toBeLessThan(60_000);
  });

  it('422 for a why outside finished|attention|error, a missing field, an over-long text', async () => {
    const bad = await http.post('/api/bell', {
      token: OPERATOR,
      body: { session: 's', why: 'done', text: 'x'.repeat(4001) },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d: { loc: string[]; type: string }) => [d.loc, d.type])).toEqual([
      [['body', 'why'], 'enum'],
      [['body', 'text'], 'string_too_long'],
    ]);
    const missing = await http.post('/api/bell', { token: OPERATOR, body: { why: 'error' } });
    expect(missing.json.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'session'],
      ['body', 'text'],
    ]);
    const ok = await http.post('/api/bell', {
      token: OPERATOR,
      body: { session: 'edge', why: 'attention', text: 'y'.repeat(4000) },
    });
    expect(ok.status).toBe(200);
  });

  it('JSON only: a form or text body is 422', async () => {
    const form = await http.post('/api/bell', {
      token: OPERATOR,
      raw: 'session=s&why=finished&text=t',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(422);
    expect(form.json.detail[0]).toMatchObject({ type: 'model_attributes_type', loc: ['body'] });
  });

  it('keeps at most 200 sessions', async () => {
    for (let i = 0; i < 210; i += 1) {
      await http.post('/api/bell', {
        token: OPERATOR,
        body: { session: `bulk-${i}`, why: 'finished', text: '' },
      });
    }
    const list = await sessions();
    expect(list).toHaveLength(200);
    expect(list[0].session).toBe('bulk-209');
    expect(list.map((s: { session: string }) => s.session)).not.toContain('build');
  });

  it('the board key cannot ring', async () => {
    const r = await http.post('/api/bell', {
      token: BOARD_KEY,
      body: { session: 's', why: 'finished', text: '' },
    });
    expect(r.status).toBe(403);
  });
});

describe('panoptes-bell', () => {
  it('rings with flags and the token from the environment', async () => {
    const r = await bell(
      ['--url', agent.url, '--session', 'cli', '--why', 'attention', '--text', 'look'],
      {
        PANOPTES_AGENT_TOKEN: OPERATOR,
      },
    );
    expect(r).toEqual({ code: 0, output: '' });
    expect((await sessions())[0]).toMatchObject({ session: 'cli', why: 'attention', text: 'look' });
  });

  it('turns a Claude Code Notification hook payload on stdin into an attention bell', async () => {
    const payload = {
      session_id: '5f3a9c2e-0000-4000-8000-000000000000',
      transcript_path: '/tmp/t.jsonl',
      cwd: '/home/dev/webshop',
      hook_event_name: 'Notification',
      message: 'Claude needs your permission to use Bash',
    };
    const r = await bell(
      ['--hook'],
      { PANOPTES_AGENT_TOKEN: OPERATOR, PANOPTES_AGENT_URL: agent.url },
      JSON.stringify(payload),
    );
    expect(r.code).toBe(0);
    expect((await sessions())[0]).toMatchObject({
      session: 'webshop 5f3a9c2e',
      why: 'attention',
      text: 'Claude needs your permission to use Bash',
    });
    const stop = await bell(
      ['--hook'],
      { PANOPTES_AGENT_TOKEN: OPERATOR, PANOPTES_AGENT_URL: agent.url },
      JSON.stringify({ ...payload, hook_event_name: 'Stop', message: undefined }),
    );
    expect(stop.code).toBe(0);
    expect((await sessions())[0]).toMatchObject({ session: 'webshop 5f3a9c2e', why: 'finished' });
  });

  it('exits 1 with a message, never the token, when the agent refuses or is missing', async () => {
    const wrong = await bell(['--url', agent.url], {
      PANOPTES_AGENT_TOKEN: 'wrong-token-0123456789',
    });
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain('401');
    const none = await bell(['--url', agent.url], {});
    expect(none.code).toBe(1);
    expect(none.output).toContain('PANOPTES_AGENT_TOKEN');
    const away = await bell(['--url', 'http://127.0.0.1:1'], { PANOPTES_AGENT_TOKEN: OPERATOR });
    expect(away.code).toBe(1);
    expect(away.output).toMatch(/^panoptes-bell: /);
    expectNoSecrets([...cliOutput, ...http.seen, ...agent.output]);
  });
});

// Every answer, message, log line and data file of this file's tests, searched for every secret.
scanForSecretsAfterAll(() => ({ secrets: SECRETS, dirs: [dir.path] }));
