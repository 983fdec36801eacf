import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { type FaultyAgent, tcpAgent } from './helpers/faulty-agents.js';
import { Recorder, writeBoardConfig } from './helpers/fleet.js';
import { isErrorShape } from './helpers/fuzz-checks.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'relay-board-token-7c1e9a3b5d'; // secret-scan: token

// No token or key of these tests in any answer, message or line the programs wrote.
scanForSecretsAfterAll(() => ({ secrets: [TOKEN] }));

/** An agent that answers every request with the same raw bytes, then closes. */
function rawAnswerAgent(answer: string | (() => Buffer)): Promise<FaultyAgent> {
  return tcpAgent((socket) => {
    socket.once('data', () => {
      socket.end(typeof answer === 'string' ? answer : answer());
    });
  });
}

describe('an agent answer no HTTP server should give is a 502 from the board, never a 500', () => {
  const dir = tempDir('panoptes-relay-answers-');
  const http = new Recorder();
  const agents: Record<string, FaultyAgent> = {};
  let board: RunningProgram;

  beforeAll(async () => {
    agents.status999 = await rawAnswerAgent(
      'HTTP/1.1 999 Weird\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    agents.status600 = await rawAnswerAgent(
      'HTTP/1.1 600 Weird\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    agents.garbled = await rawAnswerAgent('HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\n{}');
    agents.notHttp = await rawAnswerAgent('hello, this is not HTTP\r\n\r\n');
    agents.oversized = await rawAnswerAgent(() =>
      Buffer.from(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n${'0'.repeat(2 * 1024 * 1024)}`,
      ),
    );
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        sweep_interval: 60,
        machines: Object.entries(agents).map(([name, agent]) => ({
          name,
          url: agent.url,
          key: `key-of-${name}-0123456789`,
        })),
      }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    for (const agent of Object.values(agents)) await agent.close();
    dir.cleanup();
  });

  it('status 999 or 600, a garbled status line, not HTTP, a body over 1 MiB: 502 with a detail, journaled as failed', async () => {
    const expected: Record<string, RegExp> = {
      status999: /status 999/,
      status600: /status 600/,
      garbled: /not valid HTTP/,
      notHttp: /not valid HTTP/,
      oversized: /over 1 MiB/,
    };
    for (const [name, why] of Object.entries(expected)) {
      const r = await http.call(`${board.url}/api/do/${name}/svc/start`, {
        method: 'POST',
        token: TOKEN,
      });
      expect(r.status, name).toBe(502);
      expect(isErrorShape(r.text)).toBe(true);
      expect((r.json as { detail: string }).detail).toMatch(why);
    }
    const journal = (await http.call(`${board.url}/api/journal?limit=50`, { token: TOKEN }))
      .json as { entries: { op: string; target: string; outcome: string; status: number }[] };
    for (const name of Object.keys(expected)) {
      const entry = journal.entries.find((e) => e.op === 'do' && e.target === `${name}/svc/start`);
      expect(entry, name).toMatchObject({ outcome: 'failed', status: 502 });
    }
    expect(board.output.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
  });
});
