import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent } from '../harness/processes.js';
import { eventually, Http } from './helpers/agent-fixtures.js';
import { reloadRefusalsLogged, writeAgentConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN_1 = 'agent-reload-token-1-0123456789';
const TOKEN_2 = 'agent-reload-token-2-0123456789';
const BOARD_KEY = 'agent-reload-board-key-0123456';
const SECRETS = [TOKEN_1, TOKEN_2, BOARD_KEY];

interface ServiceJson {
  name: string;
  state: string;
  board: string[];
}

describe('agent reload: SIGHUP and a change of its file, without a restart', () => {
  const dir = tempDir('panoptes-agent-reload-');
  const marker = `${dir.path}/worker-alive`;
  let agent: RunningProgram;
  let http: Http;
  let file: string;
  const worker = {
    run: [
      process.execPath,
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(marker)}, ''); process.on('SIGTERM', () => { require('fs').rmSync(${JSON.stringify(marker)}); process.exit(0); }); setInterval(() => {}, 1000)`,
    ],
    board: ['start'],
  };

  beforeAll(async () => {
    file = writeAgentConfig(dir, 'agent', {
      name: 'web1',
      token: TOKEN_1,
      board_key: BOARD_KEY,
      services: { alpha: { start: ['true'] }, worker },
    });
    agent = await startAgent(file);
    http = new Http(agent.url);
  });

  afterAll(async () => {
    await agent?.stop();
    dir.cleanup();
  });

  const services = async (token: string): Promise<ServiceJson[]> =>
    ((await http.get('/api/overview', { token })).json as { services: ServiceJson[] }).services;
  const logged = (text: string) =>
    eventually(
      async () => (agent.output.some((l) => l.includes(text)) ? true : undefined),
      `a log line with ${text}`,
    );

  it('SIGHUP with a good file: new token, services added, changed and removed', async () => {
    expect((await http.post('/api/do/worker/start', { token: TOKEN_1 })).status).toBe(200);
    await eventually(async () => (existsSync(marker) ? true : undefined), 'the worker running');
    writeAgentConfig(dir, 'agent', {
      name: 'web1',
      token: TOKEN_2,
      board_key: BOARD_KEY,
      location: 'http://web1.example:8701',
      services: { alpha: { start: ['true'], board: ['start'] }, beta: { stop: ['true'] } },
    });
    process.kill(agent.pid, 'SIGHUP');
    await logged('config reloaded');
    expect((await http.get('/api/overview', { token: TOKEN_1 })).status).toBe(401);
    const now = await services(TOKEN_2);
    expect(now.map((s) => s.name)).toEqual(['alpha', 'beta']);
    expect(now.find((s) => s.name === 'alpha')?.board).toEqual(['start']);
    // The board key may now start alpha; a service no longer published is refused.
    expect((await http.post('/api/do/alpha/start', { token: BOARD_KEY })).status).toBe(200);
    expect((await http.post('/api/do/worker/start', { token: TOKEN_2 })).status).toBe(404);
    // The process service taken out of the file was stopped, not left unsupervised.
    await eventually(async () => (existsSync(marker) ? undefined : true), 'the worker stopped');
    await logged('location changed in the config; it takes effect after a restart');
  });

  it('a bad file keeps the running config and logs each problem with file and field', async () => {
    writeAgentConfig(dir, 'agent', {
      name: 'web1',
      token: 'short',
      colour: 'blue',
    });
    process.kill(agent.pid, 'SIGHUP');
    await reloadRefusalsLogged(agent.output, file, ['token', 'colour']);
    expect((await services(TOKEN_2)).map((s) => s.name)).toEqual(['alpha', 'beta']);
  });

  it('a change of the file on disk reloads without a signal', async () => {
    writeAgentConfig(dir, 'agent', {
      name: 'web1',
      token: TOKEN_2,
      board_key: BOARD_KEY,
      services: { delta: { start: ['true'] } },
    });
    await eventually(async () => {
      const names = (await services(TOKEN_2)).map((s) => s.name);
      return names.length === 1 && names[0] === 'delta' ? true : undefined;
    }, 'delta published after the file changed');
  });

  scanForSecretsAfterAll(() => ({ secrets: SECRETS, dirs: [dir.path] }));
});
