import { createServer as createHttpServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startAgent, startBoard } from '../harness/processes.js';
import { OPERATOR } from './helpers/agent-fixtures.js';
import { eventually, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { isErrorShape } from './helpers/fuzz-checks.js';
import { type Held, h2c, hold, wsHandshake } from './helpers/held-sockets.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'upgrade-board-token-7c1e9a3b5d'; // secret-scan: token

// No token or key of these tests in any answer, message or line the programs wrote.
scanForSecretsAfterAll(() => ({ secrets: [TOKEN, OPERATOR] }));

/** Opens 50 connections that ask to switch to h2c; each must be answered, then closed. */
async function fiftyUpgrades(port: number, paths: string[]): Promise<Held[]> {
  const held = await Promise.all(
    Array.from({ length: 50 }, (_, i) => hold(port, paths[i % paths.length] ?? '/')),
  );
  await Promise.all(held.map((h) => h.closed));
  for (const h of held) expect(h.received()).toMatch(/^HTTP\/1\.1 [1-5]\d\d /);
  return held;
}

/** Everything a client can hold open at once: upgrades, idle keep-alives, a slow request, a live socket that never reads. */
async function holdEverything(port: number, live: string, upgradePath: string): Promise<Held[]> {
  const held: Held[] = [];
  for (let i = 0; i < 50; i += 1) held.push(await hold(port, h2c(upgradePath)));
  for (let i = 0; i < 10; i += 1)
    held.push(await hold(port, 'GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n'));
  held.push(
    await hold(
      port,
      'POST /api/report HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"na',
    ),
  );
  for (let i = 0; i < 5; i += 1) {
    const socket = await hold(port, wsHandshake(live));
    // Switched, then silent: it never reads again, nor answers a close frame.
    await eventually(
      async () => (socket.received().startsWith('HTTP/1.1 101') ? true : undefined),
      'the switch',
    );
    socket.socket.pause();
    held.push(socket);
  }
  return held;
}

describe('upgrade requests on ordinary routes and CONNECT are answered and closed; SIGTERM exits whatever clients hold', () => {
  const dir = tempDir('panoptes-upgrades-');
  let upstream: Server;
  let upstreamWs: WebSocketServer;

  beforeAll(async () => {
    upstream = createHttpServer((_req, res) => res.end('{"upstream":true}'));
    upstreamWs = new WebSocketServer({ server: upstream });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    upstreamWs.close();
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
    dir.cleanup();
  });

  it('the board: 50 h2c upgrades are answered and closed, CONNECT is refused and closed, SIGTERM exits 0', async () => {
    const board = await startBoard(writeBoardConfig(dir, 'b', { board_token: TOKEN }));
    const port = Number(new URL(board.url).port);
    const answered = await fiftyUpgrades(port, [
      h2c('/api/health'),
      h2c('/api/board', TOKEN),
      h2c('/nowhere'),
      wsHandshake('/api/health'),
    ]);
    expect(answered.some((h) => h.received().startsWith('HTTP/1.1 400'))).toBe(true);
    const tunnel = await hold(
      port,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    await tunnel.closed;
    expect(tunnel.received()).toMatch(/^HTTP\/1\.1 405 /);
    expect(isErrorShape(tunnel.received().split('\r\n\r\n')[1] ?? '')).toBe(true);

    await holdEverything(port, `/api/live?token=${TOKEN}`, '/api/health');
    // SIGKILL comes after 10 s: only a clean exit within them is code 0.
    expect(await board.stop(10_000)).toEqual({ code: 0, signal: null });
  });

  it('the agent: the same, with WebSockets passed through /proxy/ held open', async () => {
    const address = upstream.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const agent = await startAgent(
      writeAgentConfig(dir, 'a', {
        name: 'upgrade1',
        token: OPERATOR,
        data_dir: `${dir.path}/ad`,
        proxy: `http://127.0.0.1:${address.port}`,
      }),
    );
    const port = Number(new URL(agent.url).port);
    await fiftyUpgrades(port, [
      h2c('/api/health'),
      h2c('/proxy/x'),
      h2c('/api/overview', OPERATOR),
    ]);
    const tunnel = await hold(
      port,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    await tunnel.closed;
    expect(tunnel.received()).toMatch(/^HTTP\/1\.1 405 /);

    await holdEverything(port, '/proxy/ws', '/proxy/x');
    expect(await agent.stop(10_000)).toEqual({ code: 0, signal: null });
  });
});
