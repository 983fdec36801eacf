import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, buildAgent } from '../src/agent/app.js';
import { loadAgentConfig } from '../src/agent/config.js';
import type { Clock } from '../src/agent/domain/clock.js';
import { childEnv, type NodeSpawner, trackedSpawner } from '../src/agent/io/node-spawner.js';
import { nodeSystemProbe } from '../src/agent/io/system-probe.js';
import { BODY_LIMIT_BYTES } from '../src/shared/http/errors.js';
import { createLogger } from '../src/shared/logger.js';
import { agentYaml, BOARD_KEY, OPERATOR } from './helpers/agent-fixtures.js';
import {
  type Doc,
  disagreements,
  type OperationEntry,
  type ProgramUnderTest,
  unlisted,
} from './helpers/status-provocations.js';
import { type TempDir, tempDir } from './helpers/tmp.js';

/**
 * Every operation of the agent's OpenAPI document, with a request it takes and the answers
 * particular to it. An operation added to the agent without an entry here fails the test.
 */
function agentTable(agent: Agent): Record<string, OperationEntry> {
  const workerRunning = async () => {
    await agent.services.act('worker', 'start', 'operator');
    return () => void agent.services.act('worker', 'stop', 'operator');
  };
  return {
    'GET /api/health': { path: '/api/health', provocations: [{ status: 200, why: 'up' }] },
    'GET /api/overview': {
      path: '/api/overview',
      otherTokenOpens: true,
      provocations: [
        { status: 200, why: 'the agent token' },
        { status: 200, why: 'the board key', token: BOARD_KEY },
      ],
    },
    'POST /api/bell': {
      path: '/api/bell',
      body: { session: 's1', why: 'finished', text: 'done' },
      provocations: [
        { status: 200, why: 'a bell' },
        {
          status: 422,
          why: 'a why that is not one',
          body: JSON.stringify({ session: 's1', why: 'bored', text: '' }),
        },
      ],
    },
    'POST /api/do/{what}/{action}': {
      path: '/api/do/backup/start',
      otherTokenOpens: true,
      provocations: [
        { status: 200, why: 'ran' },
        { status: 200, why: 'the board key, for what it may do', token: BOARD_KEY },
        {
          status: 403,
          why: 'the board key, for what it may not',
          path: '/api/do/backup/stop',
          token: BOARD_KEY,
        },
        { status: 404, why: 'no such service', path: '/api/do/nosuch/start' },
        { status: 404, why: 'an action not published', path: '/api/do/oneway/stop' },
        {
          status: 409,
          why: 'already running',
          path: '/api/do/worker/start',
          arrange: workerRunning,
        },
      ],
    },
    'POST /api/update': {
      path: '/api/update',
      otherTokenOpens: true,
      provocations: [
        { status: 202, why: 'an update starts' },
        { status: 202, why: 'the board key', token: BOARD_KEY },
        {
          status: 409,
          why: 'an update runs',
          arrange: async () => {
            updateBusy = true;
            return () => {
              updateBusy = false;
            };
          },
        },
      ],
    },
    'PUT /api/checks': {
      path: '/api/checks',
      body: { version: 'v1', checks: [] },
      otherTokenOpens: true,
      provocations: [
        { status: 200, why: 'the board hands checks' },
        { status: 200, why: 'the board key', token: BOARD_KEY },
        {
          status: 422,
          why: 'a check of no known type',
          body: JSON.stringify({
            version: 'v2',
            checks: [
              { name: 'x', type: 'ftp', target: 'a', interval_s: 5, timeout_s: 1, conditions: [] },
            ],
          }),
        },
      ],
    },
    'GET /api/openapi.json': { path: '/api/openapi.json', provocations: [] },
  };
}

/** Whether the test's update control says an update runs (POST /api/update is then 409). */
let updateBusy = false;

describe('every status an agent operation answers is in its OpenAPI description', () => {
  let dir: TempDir;
  let agent: Agent;
  let spawner: NodeSpawner;
  let doc: Doc;
  let program: ProgramUnderTest;
  let table: Record<string, OperationEntry>;
  // Moved on after each provocation, so that the failure limiter forgets the wrong tokens.
  let skew = 0;

  beforeAll(async () => {
    dir = tempDir('panoptes-agent-statuses-');
    const file = dir.write(
      'agent.yaml',
      agentYaml(
        `data_dir: ${dir.path}/data\nservices:\n` +
          '  backup:\n    start: ["true"]\n    stop: ["true"]\n    board: [start]\n' +
          '  oneway:\n    start: ["true"]\n' +
          '  worker:\n    run: [sleep, "600"]\n',
      ),
    );
    const settings = loadAgentConfig(file, {}, {});
    spawner = trackedSpawner(childEnv(process.env, settings.secretEnv));
    const clock: Clock = {
      now: () => Date.now() + skew,
      setTimeout(fn, ms) {
        const timer = setTimeout(fn, ms);
        timer.unref();
        return () => clearTimeout(timer);
      },
    };
    agent = await buildAgent({
      settings,
      logger: createLogger('agent', 'silent'),
      clock,
      spawner: spawner.spawn,
      probe: nodeSystemProbe([dir.path]),
      updates: {
        request: () => (updateBusy ? 'an update is already running' : null),
        fields: () => ({ updates: 'on' }),
        boardRead: () => undefined,
      },
    });
    const url = await agent.app.listen({ host: '127.0.0.1', port: 0 });
    program = {
      url,
      token: OPERATOR,
      otherToken: BOARD_KEY,
      bodyLimit: () => BODY_LIMIT_BYTES,
      // The agent believes no proxy: every request comes from 127.0.0.1.
      freshAddress: () => '203.0.113.1',
      maxFailures: 20,
      after: () => {
        skew += 61_000;
      },
    };
    const r = await fetch(`${url}/api/openapi.json`, {
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    doc = (await r.json()) as Doc;
    table = agentTable(agent);
  });
  afterAll(async () => {
    await agent?.services.stopAll();
    await agent?.app.close();
    spawner?.killAll();
    dir?.cleanup();
  });

  it('every operation in the description has provocations listed, and nothing else does', () => {
    expect(unlisted(doc, table)).toEqual([]);
  });

  it('each provocation is answered as listed, and the description lists that status', async () => {
    expect(await disagreements(doc, program, table)).toEqual([]);
  }, 120_000);
});
