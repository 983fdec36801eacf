import { copyFileSync, readFileSync } from 'node:fs';
import { Agent, request, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { makeTestCa, type TestCa } from './helpers/certs.js';
import { eventually, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'tls-board-token-0123456789';
const REGISTRATION = 'tls-registration-0123456789';
const AGENT_TOKEN = 'tls-agent-token-0123456789';
const KEY = 'tls-board-key-0123456789abc';
const SECRETS = [BOARD_TOKEN, REGISTRATION, AGENT_TOKEN, KEY];

interface MachineJson {
  name: string;
  state: string;
  error: string | null;
  origin: string;
}

describe('TLS between a board and its agents, with a made-up CA', () => {
  const dir = tempDir('panoptes-tls-');
  let ca: TestCa;
  let other: TestCa;
  let boardCert: { cert: string; key: string };
  let agent: RunningProgram;
  let announcer: RunningProgram;
  let board: RunningProgram;
  const trusting = (caFile: string) =>
    new Agent({ connect: { ca: readFileSync(caFile, 'utf8') }, pipelining: 0 });

  beforeAll(async () => {
    ca = makeTestCa(dir, 'ca');
    other = makeTestCa(dir, 'other-ca');
    const agentCert = ca.issue('agent');
    boardCert = ca.issue('board');
    agent = await startAgent(
      writeAgentConfig(dir, 'web1', {
        name: 'web1',
        token: AGENT_TOKEN,
        board_key: KEY,
        tls: agentCert,
        services: {
          backup: { start: [process.execPath, '-e', "console.log('ran')"], board: ['start'] },
        },
      }),
    );
    expect(agent.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const configDir = writeBoardConfig(dir, 'board', {
      board_token: BOARD_TOKEN,
      registration_token: REGISTRATION,
      sweep_interval: 0.3,
      tls: { cert: 'board-cert.pem', key: 'board-key.pem' },
      ca: ca.caFile,
      announced_keys: {},
      machines: [
        // Its own CA (the same one here); the board-wide one would do as well.
        { name: 'web1', url: agent.url, key: KEY, ca: ca.caFile },
        // No CA of its own: the board-wide one.
        { name: 'web2', url: agent.url, key: KEY },
        // Its own CA, which did not sign the agent's certificate: never trusted.
        { name: 'stranger', url: agent.url, key: KEY, ca: other.caFile },
      ],
    });
    // Relative to the config directory, as documented.
    copyFileSync(boardCert.cert, `${configDir}/board-cert.pem`);
    copyFileSync(boardCert.key, `${configDir}/board-key.pem`);
    board = await startBoard(configDir);
    expect(board.url).toMatch(/^https:\/\//);
    announcer = await startAgent(
      writeAgentConfig(dir, 'lab1', {
        name: 'lab1',
        token: AGENT_TOKEN,
        tls: ca.issue('lab1'),
        report: { board: board.url, token: REGISTRATION, interval: 0.5, ca: ca.caFile },
      }),
    );
  });

  afterAll(async () => {
    await announcer?.stop();
    await board?.stop();
    await agent?.stop();
    dir.cleanup();
  });

  const boardMachines = async (): Promise<MachineJson[]> => {
    const response = await undiciFetch(`${board.url}/api/board`, {
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
      dispatcher: trusting(ca.caFile),
    });
    return ((await response.json()) as { machines: MachineJson[] }).machines;
  };

  it('the board serves HTTPS and polls agents over HTTPS, trusting the CA it is given', async () => {
    const machines = await eventually(async () => {
      const all = await boardMachines();
      const up = (n: string) => all.find((m) => m.name === n)?.state === 'up';
      const stranger = all.find((m) => m.name === 'stranger');
      return up('web1') && up('web2') && up('lab1') && stranger?.error !== 'not polled yet'
        ? all
        : undefined;
    }, 'web1, web2 and lab1 up over TLS');
    const stranger = machines.find((m) => m.name === 'stranger');
    expect(stranger?.state).toBe('down');
    expect(stranger?.error).toMatch(/certificate is not trusted/);
    expect(machines.find((m) => m.name === 'lab1')?.origin).toBe('announced');
  });

  it("keeps an idle connection 75 s, past an agent's report interval, and says so", async () => {
    // undici's request, not fetch (it leaves hop-by-hop headers out), on a client that keeps
    // its connections (`trusting` asks for each to be closed).
    const keeping = new Agent({ connect: { ca: readFileSync(ca.caFile, 'utf8') } });
    const response = await request(`${board.url}/api/health`, { dispatcher: keeping });
    await response.body.arrayBuffer();
    await keeping.close();
    // undici believes this hint: an agent reporting every 10 s keeps its TLS connection.
    expect(response.headers['keep-alive']).toBe('timeout=75');
  });

  it('a client that does not trust the CA cannot talk to the board', async () => {
    await expect(
      undiciFetch(`${board.url}/api/health`, { dispatcher: trusting(other.caFile) }),
    ).rejects.toThrow();
  });

  it('relays an action over HTTPS', async () => {
    const response = await undiciFetch(`${board.url}/api/do/web1/backup/start`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
      dispatcher: trusting(ca.caFile),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ what: 'backup', action: 'start', ok: true });
  });

  it('serves the live feed as WSS', async () => {
    const url = `${board.url.replace('https', 'wss')}/api/live?token=${BOARD_TOKEN}`;
    const socket = new WebSocket(url, { ca: readFileSync(ca.caFile, 'utf8') });
    const first = await new Promise<string>((resolve, reject) => {
      socket.once('message', (data) => resolve(String(data)));
      socket.once('error', reject);
    });
    socket.close();
    expect(JSON.parse(first)).toMatchObject({ type: 'board' });
  });

  it('takes a new certificate on SIGHUP without a restart', async () => {
    const next = makeTestCa(dir, 'next-ca');
    const renewed = next.issue('board-renewed');
    const configDir = `${dir.path}/board`;
    copyFileSync(renewed.cert, `${configDir}/board-cert.pem`);
    copyFileSync(renewed.key, `${configDir}/board-key.pem`);
    process.kill(board.pid, 'SIGHUP');
    await eventually(async () => {
      const response = await undiciFetch(`${board.url}/api/health`, {
        dispatcher: trusting(next.caFile),
      });
      return response.status === 200 ? true : undefined;
    }, 'the renewed certificate served');
    await expect(
      undiciFetch(`${board.url}/api/health`, { dispatcher: trusting(ca.caFile) }),
    ).rejects.toThrow();
  });

  scanForSecretsAfterAll(() => ({ secrets: SECRETS, dirs: [dir.path] }));
});
