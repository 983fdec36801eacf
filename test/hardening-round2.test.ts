import { existsSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { keyProof, timedKeyProof } from '../src/shared/wire/key-proof.js';
import { OPERATOR } from './helpers/agent-fixtures.js';
import { type FaultyAgent, tcpAgent } from './helpers/faulty-agents.js';
import { eventually, Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { isErrorShape } from './helpers/fuzz.js';
import { type Held, h2c, hold, wsHandshake } from './helpers/held-sockets.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'round2-board-token-7c1e9a3b5d'; // not a prefix of another secret
const REGISTRATION = 'round2-registration-2b4d6f8a0c';

/**
 * Hardening round 2 (issue 12), items 5-10: one regression test per hole, each failing on the
 * code before its fix. Items 1-4 are in hardening-round2-report.test.ts.
 */

// No token or key of these tests in any answer, message or line the programs wrote.
scanForSecretsAfterAll(() => ({
  secrets: [
    TOKEN,
    REGISTRATION,
    OPERATOR,
    'round2-lab9-key-4d6f8a0c2e',
    'round2-lab8-key-1a3c5e7b9d',
  ],
}));

/** An agent that answers every request with the same raw bytes, then closes. */
function rawAnswerAgent(answer: string | (() => Buffer)): Promise<FaultyAgent> {
  return tcpAgent((socket) => {
    socket.once('data', () => {
      socket.end(typeof answer === 'string' ? answer : answer());
    });
  });
}

describe('item 7: answers no HTTP server should give are a 502 from the board, never a 500', () => {
  const dir = tempDir('panoptes-round2-relay-');
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

describe('item 9: token parameters are redacted by their parsed names in every logged URL', () => {
  const dir = tempDir('panoptes-round2-redact-');
  const http = new Recorder();
  let board: RunningProgram;
  let agent: RunningProgram;
  const escapes = ['%74oken', 'tok%65n', '%74%6F%6B%65%6E', 'TOK%45N'];

  beforeAll(async () => {
    board = await startBoard(writeBoardConfig(dir, 'b', { board_token: TOKEN }));
    agent = await startAgent(
      writeAgentConfig(dir, 'a', { name: 'redact1', token: OPERATOR, data_dir: `${dir.path}/ad` }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    await agent?.stop();
    dir.cleanup();
  });

  it('?%74oken=, tok%65n=, fully escaped and repeated names authenticate, and never reach the log', async () => {
    for (const name of escapes.slice(0, 3)) {
      // The parser decodes the name, so these authenticate: the redaction must see them too.
      const r = await http.call(`${board.url}/api/board?${name}=${TOKEN}`);
      expect(r.status, name).toBe(200);
      const a = await http.call(`${agent.url}/api/overview?${name}=${OPERATOR}`);
      expect(a.status, name).toBe(200);
    }
    const repeated = escapes.map((n) => `${n}=${TOKEN}`).join('&');
    expect((await http.call(`${board.url}/api/board?x=1&${repeated}&token=${TOKEN}`)).status).toBe(
      200,
    );
    await http.call(
      `${agent.url}/api/overview?${escapes.map((n) => `${n}=${OPERATOR}`).join('&')}`,
    );
    await eventually(
      async () =>
        board.output.filter((l) => l.includes('"request"')).length >= 4 ? true : undefined,
      'the board to log its requests',
    );
    await eventually(
      async () =>
        agent.output.filter((l) => l.includes('"request"')).length >= 4 ? true : undefined,
      'the agent to log its requests',
    );
    const logs = [...board.output, ...agent.output].join('\n');
    expect(logs).toContain('[redacted]');
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(OPERATOR);
  });
});

describe('item 6: variables the agent read secrets from never reach its services', () => {
  const dir = tempDir('panoptes-round2-env-');
  const http = new Recorder();
  let agent: RunningProgram;
  const envFile = `${dir.path}/process-env.json`;
  const secretEnv = {
    R2_AGENT_SECRET: OPERATOR,
    R2_KEY_SECRET: 'round2-board-key-5e7a9c1b3d',
    R2_REG_SECRET: 'round2-registration-for-env-0a2c',
    R2_HARMLESS: 'visible-to-services',
  };

  beforeAll(async () => {
    agent = await startAgent(
      writeAgentConfig(dir, 'a', {
        name: 'env1',
        token: '${R2_AGENT_SECRET}',
        board_key: '${R2_KEY_SECRET}',
        data_dir: `${dir.path}/ad`,
        // Announcing to a board nobody runs: the reports fail, the token is still a secret.
        report: { board: 'http://127.0.0.1:9', token: '${R2_REG_SECRET}', interval: 3600 },
        services: {
          dump: { start: ['env'], env: { R2_SERVICE_MODE: 'fast' } },
          proc: {
            run: [
              process.execPath,
              '-e',
              `require('fs').writeFileSync(${JSON.stringify(envFile)}, JSON.stringify(process.env)); setInterval(() => {}, 1000)`,
            ],
            env: { R2_SERVICE_MODE: 'slow' },
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
    expect(output).toContain('R2_SERVICE_MODE=fast');
    expect(output).toContain('R2_HARMLESS=visible-to-services');
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
    expect(seen.R2_SERVICE_MODE).toBe('slow');
    expect(seen.R2_HARMLESS).toBe('visible-to-services');
    for (const name of Object.keys(secretEnv).slice(0, 3)) expect(seen[name]).toBeUndefined();
  });
});

describe('item 5: behind a trusted reverse proxy, the wrong-token limit counts each client', () => {
  const dir = tempDir('panoptes-round2-proxy-');
  const http = new Recorder();
  let behindProxy: RunningProgram;
  let direct: RunningProgram;
  const wrong = (url: string, headers: Record<string, string>) =>
    http.call(`${url}/api/board`, { token: 'a-wrong-token-0123456789', headers });

  beforeAll(async () => {
    // The test talks from 127.0.0.1, so to the first board it is the reverse proxy.
    behindProxy = await startBoard(
      writeBoardConfig(dir, 'p', { board_token: TOKEN, trusted_proxies: ['127.0.0.0/8', '::1'] }),
    );
    direct = await startBoard(writeBoardConfig(dir, 'd', { board_token: TOKEN }));
  });
  afterAll(async () => {
    await behindProxy?.stop();
    await direct?.stop();
    dir.cleanup();
  });

  it('one stale tab behind the proxy is blocked; everyone else behind it is not', async () => {
    const stale = { 'x-forwarded-for': '203.0.113.50, 198.51.100.7' };
    for (let i = 0; i < 20; i += 1) expect((await wrong(behindProxy.url, stale)).status).toBe(401);
    expect((await wrong(behindProxy.url, stale)).status).toBe(429);
    // Another person behind the same proxy, and an agent sending Forwarded: not locked out.
    const other = await http.call(`${behindProxy.url}/api/board`, {
      token: TOKEN,
      headers: { 'x-forwarded-for': '198.51.100.8' },
    });
    expect(other.status).toBe(200);
    const viaForwarded = await http.call(`${behindProxy.url}/api/board`, {
      token: TOKEN,
      headers: { forwarded: 'for="[2001:db8::9]:4711";proto=https' },
    });
    expect(viaForwarded.status).toBe(200);
    const journal = (await http.call(`${behindProxy.url}/api/journal?limit=50`, { token: TOKEN }))
      .json as { entries: { op: string; target: string }[] };
    const refused = journal.entries.filter((e) => e.op === 'auth').map((e) => e.target);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(['198.51.100.7']));
    // The board's output comes through a pipe: the request's log line may come after its answer.
    await eventually(
      async () =>
        behindProxy.output.some((l) => l.includes('"client":"198.51.100.8"')) ? true : undefined,
      'the log line of the request from 198.51.100.8',
    );
  });

  it('without trusted_proxies the forwarding headers are ignored: a client cannot pick its address', async () => {
    for (let i = 0; i < 20; i += 1) {
      const r = await wrong(direct.url, {
        'x-forwarded-for': `198.51.100.${i}`,
        forwarded: `for=192.0.2.${i}`,
      });
      expect(r.status).toBe(401);
    }
    expect((await wrong(direct.url, { 'x-forwarded-for': '198.51.100.99' })).status).toBe(429);
  });
});

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

describe('item 8: upgrade requests on ordinary routes, CONNECT, and SIGTERM whatever clients hold', () => {
  const dir = tempDir('panoptes-round2-upgrade-');
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

describe('item 10a: a captured report with its key_proof cannot be replayed', () => {
  const dir = tempDir('panoptes-round2-proof-');
  const http = new Recorder();
  const KEY9 = 'round2-lab9-key-4d6f8a0c2e';
  const KEY8 = 'round2-lab8-key-1a3c5e7b9d';
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

describe('item 10b: the live feed’s first message at a large board is sent in parts', () => {
  const dir = tempDir('panoptes-round2-live-');
  const http = new Recorder();
  let board: RunningProgram;
  const MACHINES = 260;
  const PADDING = 60_000;

  /** The board process's resident memory, in bytes (Linux). */
  const rss = (): number => {
    const status = readFileSync(`/proc/${board.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
  };

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', { board_token: TOKEN, registration_token: REGISTRATION }),
    );
    for (let i = 0; i < MACHINES; i += 1) {
      const r = await http.call(`${board.url}/api/report`, {
        method: 'POST',
        token: REGISTRATION,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `big${i}`,
          location: `http://big${i}.example:8701`,
          padding: 'x'.repeat(PADDING),
        }),
      });
      expect(r.status).toBe(200);
    }
  });
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it('a reader gets the whole board as one message; 16 clients that never read do not each hold a copy', async () => {
    const live = `${board.url.replace('http', 'ws')}/api/live?token=${TOKEN}`;
    const reader = new WebSocket(live, { maxPayload: 64 * 1024 * 1024 });
    const messages: string[] = [];
    reader.on('message', (m) => messages.push(String(m)));
    const first = await eventually(async () => messages[0], 'the board message', 30_000);
    const parsed = JSON.parse(first) as { type: string; board: { machines: { name: string }[] } };
    expect(parsed.type).toBe('board');
    expect(parsed.board.machines).toHaveLength(MACHINES);
    expect(first.length).toBeGreaterThan(MACHINES * PADDING);

    if (!existsSync(`/proc/${board.pid}/status`)) return;
    const before = rss();
    const port = Number(new URL(board.url).port);
    const stalled: Held[] = [];
    for (let i = 0; i < 16; i += 1) {
      const h = await hold(port, wsHandshake(`/api/live?token=${TOKEN}`));
      await eventually(
        async () => (h.received().startsWith('HTTP/1.1 101') ? true : undefined),
        'the switch',
      );
      h.socket.pause();
      stalled.push(h);
    }
    // Messages for everyone while they stall: a forget is broadcast to every client.
    await http.call(`${board.url}/api/machines/big0`, { method: 'DELETE', token: TOKEN });
    const grown = rss() - before;
    // Each copy of the board is ~16 MB: 16 clients holding one each is ~250 MB.
    expect(grown).toBeLessThan(96 * 1024 * 1024);
    // The reader still gets what follows the board.
    await eventually(
      async () => (messages.some((m) => m.includes('"type":"removed"')) ? true : undefined),
      'the removal',
    );
    for (const h of stalled) h.socket.destroy();
    reader.close();
  });
});
