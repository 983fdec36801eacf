import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent } from '../harness/processes.js';
import { OPERATOR } from './helpers/agent-fixtures.js';
import { eventually, Recorder, writeAgentConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

// No token or key of these tests in any answer, message or line the programs wrote.
scanForSecretsAfterAll(() => ({ secrets: [OPERATOR] }));

describe('variables the agent read secrets from never reach its services', () => {
  const dir = tempDir('panoptes-service-env-');
  const http = new Recorder();
  let agent: RunningProgram;
  const envFile = `${dir.path}/process-env.json`;
  const secretEnv = {
    ENVTEST_AGENT_SECRET: OPERATOR,
    ENVTEST_KEY_SECRET: 'envtest-board-key-5e7a9c1b3d',
    ENVTEST_REG_SECRET: 'envtest-registration-0a2c4e6f',
    ENVTEST_HARMLESS: 'visible-to-services',
  };

  beforeAll(async () => {
    agent = await startAgent(
      writeAgentConfig(dir, 'a', {
        name: 'env1',
        token: '${ENVTEST_AGENT_SECRET}',
        board_key: '${ENVTEST_KEY_SECRET}',
        data_dir: `${dir.path}/ad`,
        // Announcing to a board nobody runs: the reports fail, the token is still a secret.
        report: { board: 'http://127.0.0.1:9', token: '${ENVTEST_REG_SECRET}', interval: 3600 },
        services: {
          dump: { start: ['env'], env: { ENVTEST_SERVICE_MODE: 'fast' } },
          proc: {
            run: [
              process.execPath,
              '-e',
              `require('fs').writeFileSync(${JSON.stringify(envFile)}, JSON.stringify(process.env)); setInterval(() => {}, 1000)`,
            ],
            env: { ENVTEST_SERVICE_MODE: 'slow' },
          },
        },
      }),
      { env: secretEnv },
    );
  });
  afterAll(async () => {
    await agent?.stop();
    dir.cleanup();
  });

  it('a command and a process service inherit neither the variables nor their values, and get their env:', async () => {
    const dump = await http.call(`${agent.url}/api/do/dump/start`, {
      method: 'POST',
      token: OPERATOR,
    });
    expect(dump.status).toBe(200);
    const output = (dump.json as { output: string }).output;
    expect(output).toContain('ENVTEST_SERVICE_MODE=fast');
    expect(output).toContain('ENVTEST_HARMLESS=visible-to-services');
    for (const [name, value] of Object.entries(secretEnv).slice(0, 3)) {
      expect(output).not.toContain(name);
      expect(output).not.toContain(value);
    }
    const started = await http.call(`${agent.url}/api/do/proc/start`, {
      method: 'POST',
      token: OPERATOR,
    });
    expect(started.status).toBe(200);
    const seen = await eventually(async () => {
      const { readFileSync } = await import('node:fs');
      return JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string>;
    }, 'the process service to write its environment');
    expect(seen.ENVTEST_SERVICE_MODE).toBe('slow');
    expect(seen.ENVTEST_HARMLESS).toBe('visible-to-services');
    for (const name of Object.keys(secretEnv).slice(0, 3)) expect(seen[name]).toBeUndefined();
  });
});
