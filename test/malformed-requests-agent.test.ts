import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent } from '../harness/processes.js';
import { Recorder, writeAgentConfig } from './helpers/fleet.js';
import { nested } from './helpers/fuzz-arbitraries.js';
import { isErrorShape } from './helpers/fuzz-checks.js';
import { parseRawAnswers, rawExchange } from './helpers/fuzz-raw.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** Malformed and odd requests to the agent get a 4xx in FastAPI's shape, never a 500. */
describe('malformed requests to the agent: a FastAPI-shaped 4xx, never a 500', () => {
  const OPERATOR = 'malformed-operator-token-5a7c9e1b3d5f';
  const BOARD_KEY = 'malformed-agent-board-key-6b8d0f2a4c6e';
  const dir = tempDir('panoptes-malformed-agent-');
  const http = new Recorder();
  const received: string[] = [];
  let agent: RunningProgram;

  beforeAll(async () => {
    agent = await startAgent(
      writeAgentConfig(dir, 'a', {
        name: 'malformed',
        token: OPERATOR,
        board_key: BOARD_KEY,
        data_dir: `${dir.path}/data`,
        proxy: 'http://127.0.0.1:9',
      }),
    );
  });
  afterAll(async () => {
    await agent?.stop();
    dir.cleanup();
  });

  it('a bell nested 20,000 levels deep is a 422, not a 500; the overview still serialises', async () => {
    const r = await http.call(`${agent.url}/api/bell`, {
      method: 'POST',
      token: OPERATOR,
      headers: { 'content-type': 'application/json' },
      body: nested(20_000, 'array'),
    });
    expect(r.status).toBe(422);
    expect((r.json as { detail: { type: string }[] }).detail[0]?.type).toBe('json_invalid');
    expect((await http.call(`${agent.url}/api/overview`, { token: OPERATOR })).status).toBe(200);
  });

  it('a bad WebSocket handshake on /proxy/ is a FastAPI-shaped 400, not ws’s plain text', async () => {
    const port = Number(new URL(agent.url).port);
    const { text } = await rawExchange(
      port,
      'GET /proxy/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Key: x\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    received.push(text);
    const [answer] = parseRawAnswers(text);
    expect(answer?.status).toBe(400);
    expect(isErrorShape(answer?.text ?? '')).toBe(true);
  });

  it('leaves no secret anywhere', () => {
    expectNoSecrets({
      secrets: [OPERATOR, BOARD_KEY],
      recorders: [http],
      texts: received,
      dirs: [dir.path],
    });
  });
});
